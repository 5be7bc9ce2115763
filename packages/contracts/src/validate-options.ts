import { Ajv } from "ajv";
import formatsPlugin from "ajv-formats";
import type { OperationId } from "./operation-ids.js";
import { getOperation } from "./operations.js";
import { explainOptionsError, propertiesOf } from "./option-messages.js";
import { optionsRuleProblem } from "./option-rules.js";
import type { OptionsOf } from "./options/index.js";
import { pageRangesFormat, pageRangesProblem } from "./page-ranges.js";
import { type JsonSchema, toJsonSchema } from "./schema-helpers.js";

export type OptionsValidation<Id extends OperationId> =
  | { ok: true; value: OptionsOf<Id> }
  | { ok: false; detail: string };

// ajv-formats is CommonJS; under Node's ESM interop its plugin sits on `.default`.
const addFormats = formatsPlugin.default;

let ajv: Ajv | undefined;
const jsonSchemas = new Map<OperationId, JsonSchema>();

/** Built on first use, so importing the contract costs nothing. */
function getAjv(): Ajv {
  if (ajv === undefined) {
    ajv = new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addFormat(pageRangesFormat, {
      type: "string",
      validate: (text) => pageRangesProblem(text) === undefined,
    });
  }
  return ajv;
}

/** One schema object per operation: ajv caches compiled validators by object, so each compiles once. */
function cachedJsonSchema(id: OperationId): JsonSchema {
  let schema = jsonSchemas.get(id);
  if (schema === undefined) {
    schema = toJsonSchema(getOperation(id).options);
    jsonSchemas.set(id, schema);
  }
  return schema;
}

/** The JSON Schema ajv validates an operation's options with (a fresh copy; the OpenAPI document embeds the same). */
export function optionsJsonSchema(id: OperationId): JsonSchema {
  return toJsonSchema(getOperation(id).options);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Options documented as "a string, or its integer spelling" (pdf-to-pdfa level) become the string. */
function normaliseIntegerSpellings(schema: JsonSchema, options: Record<string, unknown>): void {
  for (const [name, optionSchema] of Object.entries(propertiesOf(schema))) {
    const value = options[name];
    const types = optionSchema.type;
    if (
      Number.isInteger(value) &&
      Array.isArray(types) &&
      types.includes("string") &&
      types.includes("integer")
    ) {
      options[name] = String(value);
    }
  }
}

function copyOf(options: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const copy: unknown = structuredClone(options);
    return isPlainObject(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates an operation's options against their schema, then the rules the schema cannot state
 * (option-rules.ts), and applies the defaults. Works on a copy, so `raw` is left as it
 * was. `undefined` means no options were sent and counts as `{}`.
 */
export function validateOptions<Id extends OperationId>(id: Id, raw: unknown): OptionsValidation<Id> {
  const input = raw === undefined ? {} : raw;
  const options = isPlainObject(input) ? copyOf(input) : undefined;
  if (options === undefined) return { ok: false, detail: "options: must be a JSON object" };
  const schema = cachedJsonSchema(id);
  normaliseIntegerSpellings(schema, options);
  const validate = getAjv().compile<OptionsOf<Id>>(schema);
  if (!validate(options)) {
    return { ok: false, detail: explainOptionsError(id, schema, validate.errors?.[0], options) };
  }
  const problem = optionsRuleProblem(id, options);
  return problem === undefined ? { ok: true, value: options } : { ok: false, detail: problem };
}
