import {
  OptionalKind,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  Type,
} from "@sinclair/typebox";

/** A plain JSON Schema object: what ajv compiles and what the OpenAPI document embeds. */
export type JsonSchema = Record<string, unknown>;

/**
 * An optional property whose default ajv fills in. The `default` is carried in the TS type too,
 * so `OptionsAfterDefaults` can tell which options are always present after validation.
 */
export type TDefaulted<T extends TSchema> = TOptional<T> & { readonly default: Static<T> };

export function withDefault<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> {
  // The same marker Type.Optional sets; spelt out so the result keeps the precise type.
  return { ...schema, [OptionalKind]: "Optional", default: value };
}

type DefaultedKeys<P extends TProperties> = {
  [K in keyof P]: P[K] extends { readonly default: unknown } ? K : never;
}[keyof P];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The static type of an options object after ajv has applied the defaults. */
export type OptionsAfterDefaults<T extends TObject> = Simplify<
  Static<T> & { [K in DefaultedKeys<T["properties"]>]-?: Static<T["properties"][K]> }
>;

/**
 * A string enum as `{ type: "string", enum: [...] }` rather than TypeBox's anyOf of consts,
 * because OpenAPI renderers show `enum` as a plain list of allowed values.
 */
export function stringEnum<const V extends readonly string[]>(values: V, description: string) {
  return Type.Unsafe<V[number]>({ type: "string", enum: [...values], description });
}

export function integerEnum<const V extends readonly number[]>(values: V, description: string) {
  return Type.Unsafe<V[number]>({ type: "integer", enum: [...values], description });
}

/** An options object: closed, so a misspelt option is an error rather than silently ignored. */
export function optionsObject<P extends TProperties>(properties: P, description: string): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, description });
}

function stripSymbolKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSymbolKeys);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, stripSymbolKeys(inner)]));
  }
  return value;
}

/**
 * A TypeBox schema as plain JSON Schema: a deep copy without TypeBox's symbol keys.
 * ajv and the OpenAPI document both read this form, so they cannot disagree.
 */
export function toJsonSchema(schema: TSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).map(([key, inner]) => [key, stripSymbolKeys(inner)]));
}
