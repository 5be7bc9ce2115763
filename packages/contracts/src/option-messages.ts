import type { ErrorObject } from "ajv";
import { hexColourPattern, pageNumberPattern } from "./options/edits.js";
import { nonBlankPattern } from "./options/redact.js";
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

/** A number's bounds in words: "from 1 to 10", "of at least 1", or "" when it has none. */
function boundWords(schema: JsonSchema): string {
  const min = numberAt(schema, "minimum");
  const max = numberAt(schema, "maximum");
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `of at least ${min}`;
  return max !== undefined ? `of at most ${max}` : "";
}

/** A bounded number in words: `kind` is "an integer" or "a number". */
function describeBounded(schema: JsonSchema, kind: string): string {
  const bounds = boundWords(schema);
  return bounds === "" ? `must be ${kind}` : `must be ${kind} ${bounds}`;
}

/** What a string pattern asks for, in words. */
const patternWords: Record<string, string> = {
  [hexColourPattern]: 'a colour written "#RRGGBB", e.g. "#808080"',
  [pageNumberPattern]: 'containing {n} where the number goes, e.g. "Page {n} of {total}"',
  [nonBlankPattern]: "with a character other than white space",
};

function lengthWords(schema: JsonSchema): string {
  const min = numberAt(schema, "minLength");
  const max = numberAt(schema, "maxLength");
  return min === undefined && max === undefined ? "" : ` of ${describeCount(min, max)} characters`;
}

function patternWordsOf(schema: JsonSchema): string | undefined {
  return typeof schema.pattern === "string" ? patternWords[schema.pattern] : undefined;
}

function describeString(schema: JsonSchema): string {
  const pattern = patternWordsOf(schema);
  const length = lengthWords(schema);
  return pattern === undefined ? `must be a string${length}` : `must be a string${length} ${pattern}`;
}

/** The names of an object's properties: "page, rect". */
function propertyNames(schema: JsonSchema): string {
  return Object.keys(propertiesOf(schema)).join(", ");
}

/** An object's shape in words: "an object with page, rect". */
function describeObject(schema: JsonSchema): string {
  const names = propertyNames(schema);
  return names === "" ? "an object" : `an object with ${names}`;
}

/** The items of an array in words, as a plural: "strings of 1 to 200 characters"; undefined for others. */
function itemsNoun(items: JsonSchema): string | undefined {
  const withBounds = (noun: string) => [noun, boundWords(items)].filter((part) => part !== "").join(" ");
  switch (items.type) {
    case "string": {
      const pattern = patternWordsOf(items);
      return `strings${lengthWords(items)}${pattern === undefined ? "" : `, each ${pattern}`}`;
    }
    case "integer":
      return withBounds("integers");
    case "number":
      return withBounds("numbers");
    case "object": {
      const names = propertyNames(items);
      return names === "" ? "objects" : `objects with ${names}`;
    }
    default:
      return undefined;
  }
}

function describeArray(schema: JsonSchema): string {
  const items = isSchema(schema.items) ? schema.items : {};
  const count = describeCount(numberAt(schema, "minItems"), numberAt(schema, "maxItems"));
  const unique = schema.uniqueItems === true ? " (each at most once)" : "";
  if (Array.isArray(items.enum)) return `must hold ${count} of ${listOf(items.enum)}${unique}`;
  const noun = itemsNoun(items);
  if (noun === undefined) return `must hold ${count}${unique}`;
  return `must hold ${count === "any number" ? "any number of" : count} ${noun}${unique}`;
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
    case "object":
      return `must be ${describeObject(schema)}`;
    default:
      return "is not valid";
  }
}

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
}

function describeProblem(schema: JsonSchema, value: unknown): string {
  // A type list (an object or a list of them): what the value's own type must be, or every type allowed.
  if (Array.isArray(schema.type) && schema.enum === undefined) {
    const type = jsonTypeOf(value);
    const types = schema.type.map(String);
    if (types.includes(type)) return describeAllowed({ ...schema, type });
    const named = types.map((each) =>
      each === "array" ? "a list" : `${/^[aeiou]/.test(each) ? "an" : "a"} ${each}`,
    );
    return `must be ${named.join(" or ")}`;
  }
  // One of several shapes: what the shape the value has must be, or all of them when it has none of them.
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.filter(isSchema);
    const type = jsonTypeOf(value);
    const matching = branches.find(
      (branch) => branch.type === type || (branch.type === "number" && type === "integer"),
    );
    if (matching !== undefined) return describeProblem(matching, value);
    return branches.map(describeAllowed).join(", or ");
  }
  // A page list can be wrong in a way worth naming ("5-3" goes backwards), not just "invalid".
  if (schema.format === pageRangesFormat && typeof value === "string") {
    return pageRangesProblem(value) ?? describeAllowed(schema);
  }
  return describeAllowed(schema);
}

/** The segments of an ajv error's JSON pointer: "/areas/0/rect" → ["areas", "0", "rect"]. */
function segmentsOf(instancePath: string): string[] {
  return instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * Whether an option holds objects (an object, or a list of them): its errors are told where they are
 * ("areas[0].page: ..."), since the option's own words would not say which field is wrong. A list of
 * strings or numbers is told as a whole ("languages: must hold 1 to 3 of ...").
 */
function holdsObjects(schema: JsonSchema): boolean {
  return schema.type === "object" || (isSchema(schema.items) && schema.items.type === "object");
}

/** The place an error points at below an option: its name in words ("areas[0].rect"), schema and value. */
function placeOf(optionSchema: JsonSchema, value: unknown, segments: readonly string[]) {
  let place = { label: segments[0] ?? "options", schema: optionSchema, value };
  for (const segment of segments.slice(1)) {
    const { type } = place.schema;
    const inArray =
      type === "array" || (Array.isArray(type) && type.includes("array") && /^\d+$/.test(segment));
    const schema = inArray ? place.schema.items : propertiesOf(place.schema)[segment];
    const container = typeof place.value === "object" && place.value !== null ? place.value : {};
    place = {
      label: inArray ? `${place.label}[${segment}]` : `${place.label}.${segment}`,
      schema: isSchema(schema) ? schema : {},
      value: (container as Record<string, unknown>)[segment],
    };
  }
  return place;
}

function explainWithin(
  optionSchema: JsonSchema,
  value: unknown,
  segments: readonly string[],
  error: ErrorObject,
): string {
  const place = placeOf(optionSchema, value, segments);
  if (error.keyword === "required")
    return `${place.label}.${String(error.params.missingProperty)}: is required`;
  if (error.keyword === "additionalProperties") {
    const allowed = propertyNames(place.schema);
    return `${place.label}.${String(error.params.additionalProperty)}: is not allowed (allowed: ${allowed})`;
  }
  return `${place.label}: ${describeProblem(place.schema, place.value)}`;
}

export function explainOptionsError(
  operationId: string,
  schema: JsonSchema,
  error: ErrorObject | undefined,
  options: Record<string, unknown>,
): string {
  const properties = propertiesOf(schema);
  const allowed = Object.keys(properties);
  const segments = segmentsOf(error?.instancePath ?? "");
  const [name] = segments;
  const optionSchema = name === undefined ? undefined : properties[name];
  if (error !== undefined && name !== undefined && optionSchema !== undefined && holdsObjects(optionSchema)) {
    return explainWithin(optionSchema, options[name], segments, error);
  }
  if (error?.keyword === "additionalProperties") {
    const extra = String(error.params.additionalProperty);
    if (allowed.length === 0) return `${extra}: is not an option; ${operationId} takes no options`;
    return `${extra}: is not an option of ${operationId} (allowed: ${allowed.join(", ")})`;
  }
  if (error?.keyword === "required") return `${String(error.params.missingProperty)}: is required`;
  if (name === undefined || optionSchema === undefined)
    return `options: ${error?.message ?? "are not valid"}`;
  return `${name}: ${describeProblem(optionSchema, options[name])}`;
}
