/*
 * Values for a JSON Schema, made from its keywords alone: one the schema accepts, and for each bound it
 * sets a value just past it. The contract walk sends them to the server; each is first checked against
 * the document with ajv, so a value this file gets wrong fails the test instead of testing nothing.
 */

export type Schema = Record<string, unknown>;

/** For each format: a value it takes and one it does not (a page list's backward range is prose). */
const formatSamples: Record<string, [valid: string, invalid: string]> = {
  "page-ranges": ["1", "a-b"],
  uri: ["https://example.com/page", "not a uri"],
  "date-time": ["2026-01-01T00:00:00Z", "yesterday"],
};

function types(schema: Schema): string[] {
  const { type } = schema;
  if (Array.isArray(type)) return type.map(String);
  return typeof type === "string" ? [type] : [];
}

const numberOr = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback);

/** A value the schema accepts: its default, else its first choice, else one built to its bounds. */
export function validValue(schema: Schema): unknown {
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const [firstBranch] = [schema.oneOf, schema.anyOf].find(Array.isArray) ?? [];
  if (firstBranch) return validValue(firstBranch as Schema);
  const format = typeof schema.format === "string" ? formatSamples[schema.format] : undefined;
  if (format) return format[0];
  const [type] = types(schema);
  switch (type) {
    case "string":
      return "x".repeat(Math.max(1, numberOr(schema.minLength, 1)));
    case "integer":
    case "number":
      return numberOr(schema.minimum, 1);
    case "boolean":
      return true;
    case "array": {
      const items = (schema.items ?? {}) as Schema;
      return Array.from({ length: numberOr(schema.minItems, 1) }, () => validValue(items));
    }
    case "object":
      return requiredProperties(schema);
    default:
      throw new Error(`no valid value for the schema ${JSON.stringify(schema)}`);
  }
}

/** An object holding only the schema's required properties, each with a valid value. */
export function requiredProperties(schema: Schema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return Object.fromEntries(required.map((name) => [name, validValue(properties[name] ?? {})]));
}

/** A string the pattern refuses, from a few candidates; undefined when all match. */
function offPattern(pattern: string): string | undefined {
  const regex = new RegExp(pattern, "u");
  return ["", "!", "not matching at all ~", "0"].find((candidate) => !regex.test(candidate));
}

/** A value that is none of the schema's types. */
function wrongType(schema: Schema): unknown {
  const allowed = types(schema);
  const candidates: unknown[] = [true, "yes", "many", "not a list", "not an object"];
  const offType = (value: unknown) =>
    !allowed.some((type) =>
      type === "integer"
        ? Number.isInteger(value)
        : typeof value === type || (type === "array" && Array.isArray(value)),
    );
  return candidates.find(offType);
}

/** For each bound the schema sets, a value just past it, with the bound it breaks. */
export function outOfBounds(schema: Schema): { value: unknown; breaks: string }[] {
  const values: { value: unknown; breaks: string }[] = [];
  const add = (breaks: string, value: unknown) => values.push({ value, breaks });
  if (types(schema).length > 0) add("type", wrongType(schema));
  if (Array.isArray(schema.enum)) {
    add("enum", typeof schema.enum[0] === "number" ? 12345 : "none-of-these");
  }
  if (typeof schema.minimum === "number") add("minimum", schema.minimum - 1);
  if (typeof schema.maximum === "number") add("maximum", schema.maximum + 1);
  if (types(schema).includes("integer") && !Array.isArray(schema.enum)) {
    add("integer", numberOr(schema.minimum, 1) + 0.5);
  }
  if (typeof schema.minLength === "number" && schema.minLength > 0) {
    add("minLength", "x".repeat(schema.minLength - 1));
  }
  if (typeof schema.maxLength === "number") add("maxLength", "x".repeat(schema.maxLength + 1));
  if (typeof schema.pattern === "string") {
    const value = offPattern(schema.pattern);
    if (value !== undefined) add("pattern", value);
  }
  const format = typeof schema.format === "string" ? formatSamples[schema.format] : undefined;
  if (format) add("format", format[1]);
  const items = schema.items as Schema | undefined;
  if (typeof schema.minItems === "number" && schema.minItems > 0) add("minItems", []);
  if (typeof schema.maxItems === "number" && items) {
    add(
      "maxItems",
      Array.from({ length: schema.maxItems + 1 }, () => validValue(items)),
    );
  }
  if (schema.uniqueItems === true && items) add("uniqueItems", [validValue(items), validValue(items)]);
  if (items) {
    for (const inner of outOfBounds(items)) add(`items.${inner.breaks}`, [inner.value]);
  }
  return values;
}
