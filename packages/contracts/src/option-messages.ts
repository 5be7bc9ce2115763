import type { ErrorObject } from "ajv";
import { hexColourPattern, pageNumberPattern } from "./options/edits.js";
import { pageRangesFormat, pageRangesProblem } from "./page-ranges.js";
import type { JsonSchema } from "./schema-helpers.js";

/*
 * Turns ajv's first error into the `detail` of a 400 invalid_options: the option's name and what it
 * allows, in plain words. The words come from the option's own schema, so they follow the contract.
 */

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numberAt(schema: JsonSchema, key: string): number | undefined {
  const value = schema[key];
  return typeof value === "number" ? value : undefined;
}

/** The option schemas of an options object, by name. */
export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const properties = schema.properties;
  if (!isSchema(properties)) return {};
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, inner]) => (isSchema(inner) ? [[name, inner]] : [])),
  );
}

function listOf(values: readonly unknown[]): string {
  return [...new Set(values.map(String))].join(", ");
}

function describeCount(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return min === max ? `${min}` : `${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  return max !== undefined ? `at most ${max}` : "any number";
}

/** A bounded number in words: `kind` is "an integer" or "a number". */
function describeBounded(schema: JsonSchema, kind: string): string {
  const min = numberAt(schema, "minimum");
  const max = numberAt(schema, "maximum");
  if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
  if (min !== undefined) return `must be ${kind} of at least ${min}`;
  return max !== undefined ? `must be ${kind} of at most ${max}` : `must be ${kind}`;
}

/** What a string pattern asks for, in words. */
const patternWords: Record<string, string> = {
  [hexColourPattern]: 'a colour written "#RRGGBB", e.g. "#808080"',
  [pageNumberPattern]: 'containing {n} where the number goes, e.g. "Page {n} of {total}"',
};

function describeString(schema: JsonSchema): string {
  const min = numberAt(schema, "minLength");
  const max = numberAt(schema, "maxLength");
  const pattern = typeof schema.pattern === "string" ? patternWords[schema.pattern] : undefined;
  const length = min === undefined && max === undefined ? "" : ` of ${describeCount(min, max)} characters`;
  return pattern === undefined ? `must be a string${length}` : `must be a string${length} ${pattern}`;
}

function describeArray(schema: JsonSchema): string {
  const items = isSchema(schema.items) ? schema.items : {};
  const count = describeCount(numberAt(schema, "minItems"), numberAt(schema, "maxItems"));
  const choices = Array.isArray(items.enum) ? ` of ${listOf(items.enum)}` : "";
  const unique = schema.uniqueItems === true ? " (each at most once)" : "";
  return `must hold ${count}${choices}${unique}`;
}

/** What an option allows, e.g. "must be one of 90, 180, 270". */
export function describeAllowed(schema: JsonSchema): string {
  if (schema.format === pageRangesFormat) return "must list pages and ranges such as 1-3, 5, 7-9";
  if (schema.format === "uri") return "must be an http or https URL";
  if (Array.isArray(schema.enum)) return `must be one of ${listOf(schema.enum)}`;
  switch (schema.type) {
    case "integer":
      return describeBounded(schema, "an integer");
    case "number":
      return describeBounded(schema, "a number");
    case "boolean":
      return "must be true or false";
    case "array":
      return describeArray(schema);
    case "string":
      return describeString(schema);
    default:
      return "is not valid";
  }
}

function describeProblem(schema: JsonSchema, value: unknown): string {
  // A page list can be wrong in a way worth naming ("5-3" goes backwards), not just "invalid".
  if (schema.format === pageRangesFormat && typeof value === "string") {
    return pageRangesProblem(value) ?? describeAllowed(schema);
  }
  return describeAllowed(schema);
}

/** The option an ajv error is about: the first segment of its JSON pointer, e.g. "/languages/0". */
function optionNameOf(instancePath: string): string | undefined {
  const segment = instancePath.split("/")[1];
  return segment?.replaceAll("~1", "/").replaceAll("~0", "~");
}

export function explainOptionsError(
  operationId: string,
  schema: JsonSchema,
  error: ErrorObject | undefined,
  options: Record<string, unknown>,
): string {
  const properties = propertiesOf(schema);
  const allowed = Object.keys(properties);
  if (error?.keyword === "additionalProperties") {
    const name = String(error.params.additionalProperty);
    if (allowed.length === 0) return `${name}: is not an option; ${operationId} takes no options`;
    return `${name}: is not an option of ${operationId} (allowed: ${allowed.join(", ")})`;
  }
  if (error?.keyword === "required") return `${String(error.params.missingProperty)}: is required`;
  const name = optionNameOf(error?.instancePath ?? "");
  const optionSchema = name === undefined ? undefined : properties[name];
  if (name === undefined || optionSchema === undefined)
    return `options: ${error?.message ?? "are not valid"}`;
  return `${name}: ${describeProblem(optionSchema, options[name])}`;
}
