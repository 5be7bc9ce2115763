import type { OperationInfo, OptionInfo } from "@octavo/client/catalogue";
import { InvalidArgumentError, Option } from "commander";
import { UsageError } from "./usage-error.js";

/*
 * An operation's options as command-line flags: `targetKB` → `--target-kb <integer>`, arrays as
 * comma-separated lists, booleans as `--grayscale` / `--no-grayscale`, enums as commander choices, objects
 * and lists of objects as JSON (`--chunking '{"maxCharacters":2000}'`,
 * `--areas '[{"page":1,"rect":[72,72,200,20]}]'`).
 * Only the value's type and an enum's choices are checked here; ranges, patterns and required options
 * are the API's to check, so its answer (400 invalid_options, naming the option) is the one rule book.
 */

type ValueType = "string" | "integer" | "number" | "boolean" | "array" | "object";

/** `targetKB` → `target-kb`, `userPassword` → `user-password`. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

/** The flag of an option, without dashes: `target-kb`. */
export function flagName(option: OptionInfo): string {
  return kebabCase(option.name);
}

/**
 * The option's type as one word. The catalogue may give a JSON Schema type list (pdf-to-pdfa's level
 * takes "2" and 2 alike): the first entry wins, so the value is sent the way the schema lists first.
 */
function valueType(option: OptionInfo): ValueType {
  const type: unknown = option.type;
  const first: unknown = Array.isArray(type) ? type[0] : type;
  return first === "integer" ||
    first === "number" ||
    first === "boolean" ||
    first === "array" ||
    first === "object"
    ? first
    : "string";
}

/** An enum's values as the words typed on the command line, each once. */
function choicesOf(values: readonly (string | number)[] | undefined): string[] | undefined {
  return values === undefined ? undefined : [...new Set(values.map(String))];
}

/** Parses one typed word as a value of `type`; throws commander's InvalidArgumentError (a usage error). */
export function parseScalar(raw: string, type: ValueType, choices?: readonly string[]): string | number {
  const word = raw.trim();
  if (choices !== undefined && !choices.includes(word)) {
    throw new InvalidArgumentError(`Allowed choices are ${choices.join(", ")}.`);
  }
  if (type === "integer") {
    if (!/^[-+]?\d+$/.test(word)) throw new InvalidArgumentError("Not an integer.");
    return Number(word);
  }
  if (type === "number") {
    const value = Number(word);
    if (word === "" || !Number.isFinite(value)) throw new InvalidArgumentError("Not a number.");
    return value;
  }
  return raw;
}

/** A comma-separated list as an array of the item type: `eng, deu` → ["eng", "deu"]. */
export function parseList(
  raw: string,
  itemType: ValueType,
  choices?: readonly string[],
): (string | number)[] {
  const words = raw
    .split(",")
    .map((word) => word.trim())
    .filter((word) => word !== "");
  if (words.length === 0) throw new InvalidArgumentError("Give at least one value, comma-separated.");
  return words.map((word) => parseScalar(word, itemType, choices));
}

/** The help text of an option: its description, its bounds, its default. */
function helpText(option: OptionInfo): string {
  const notes: string[] = [];
  if (option.required) notes.push("required");
  if (option.minimum !== undefined && option.maximum !== undefined) {
    notes.push(`${option.minimum} to ${option.maximum}`);
  } else if (option.minimum !== undefined) {
    notes.push(`at least ${option.minimum}`);
  } else if (option.maximum !== undefined) {
    notes.push(`at most ${option.maximum}`);
  }
  if (option.default !== undefined && valueType(option) !== "boolean") {
    notes.push(
      `default: ${Array.isArray(option.default) ? option.default.join(",") : String(option.default)}`,
    );
  }
  return notes.length === 0 ? option.description : `${option.description} (${notes.join("; ")})`;
}

function placeholder(option: OptionInfo): string {
  switch (valueType(option)) {
    case "integer":
      return "<integer>";
    case "number":
      return "<number>";
    case "array":
      return option.items?.type === "object" ? "<json>" : "<list>";
    case "object":
      return "<json>";
    default:
      return option.enum === undefined ? "<text>" : "<choice>";
  }
}

/**
 * A file given for an option that may be uploaded instead (`--data @data.json`, Generate's data): sent in
 * the named upload field of the same name, not as the option.
 */
export class UploadInstead {
  constructor(readonly path: string) {}
}

/** JSON of either an object or a list, for an option that takes both (Generate's data). */
function parseJsonObjectOrList(raw: string): unknown {
  return raw.trimStart().startsWith("[") ? parseJsonArray(raw) : parseJsonObject(raw);
}

/**
 * The commander options of one operation option. A boolean gets both `--name` and `--no-name`, the one
 * that only repeats the default hidden from the help; neither given leaves the option out, so the
 * service's default applies. `uploadable`: the option may come as a file in the upload field of its name,
 * which `@path` asks for.
 */
export function commanderOptions(option: OptionInfo, uploadable = false): Option[] {
  const name = flagName(option);
  const type = valueType(option);
  if (uploadable) {
    const flag = new Option(`--${name} <json|@file>`, `${helpText(option)} (@file uploads the file instead)`);
    return [
      flag.argParser((raw) =>
        raw.startsWith("@") ? new UploadInstead(raw.slice(1)) : parseJsonObjectOrList(raw),
      ),
    ];
  }
  if (type === "boolean") {
    const on = new Option(`--${name}`, option.description);
    const description = option.description;
    const off = new Option(
      `--no-${name}`,
      `Do not ${description.charAt(0).toLowerCase()}${description.slice(1)}`,
    );
    if (option.default === true) on.hideHelp();
    if (option.default === false) off.hideHelp();
    return [on, off];
  }
  const flag = new Option(`--${name} ${placeholder(option)}`, helpText(option));
  if (type === "array" && option.items?.type === "object") return [flag.argParser(parseJsonArray)];
  if (type === "array") {
    const itemChoices = choicesOf(option.items?.enum);
    const itemType =
      option.items?.type === "integer" || option.items?.type === "number" ? option.items.type : "string";
    // .choices() only for the help's "(choices: …)"; the parser checks each item of the list.
    if (itemChoices !== undefined) flag.choices(itemChoices);
    return [flag.argParser((raw) => parseList(raw, itemType, itemChoices))];
  }
  if (type === "object") return [flag.argParser(parseJsonObject)];
  const choices = choicesOf(option.enum);
  if (choices !== undefined) flag.choices(choices);
  return [flag.argParser((raw) => parseScalar(raw, type, choices))];
}

/** An object option's JSON; its fields are the API's to check. */
function parseJsonObject(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidArgumentError("Not JSON: give an object such as '{\"maxCharacters\":2000}'.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError("Not a JSON object.");
  }
  return { ...value };
}

/** A list of objects as JSON; the objects' fields are the API's to check. */
function parseJsonArray(raw: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidArgumentError(`Not JSON: give a list such as '[{"page":1,"rect":[72,72,200,20]}]'.`);
  }
  if (!Array.isArray(value)) throw new InvalidArgumentError("Not a JSON list ([...]).");
  return value;
}

/** The attribute commander stores a flag's value under (`--target-kb` → `targetKb`). */
function attributeOf(option: OptionInfo): string {
  return new Option(`--${flagName(option)}`).attributeName();
}

/** Parses `--options <json>`: a JSON object, or a usage error saying what is wrong. */
export function parseOptionsJson(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(
      `--options is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError('--options must be a JSON object, e.g. --options \'{"level":"extreme"}\'');
  }
  return { ...value };
}

/**
 * The options object of a request: `--options`' object, then each flag given over it, under the
 * option's own name (`targetKB`). Flags not given are left out.
 */
export function optionsFromFlags(
  operation: OperationInfo,
  values: Readonly<Record<string, unknown>>,
  optionsJson?: string,
): Record<string, unknown> {
  const options = optionsJson === undefined ? {} : parseOptionsJson(optionsJson);
  for (const option of operation.options) {
    const value = values[attributeOf(option)];
    if (value !== undefined && !(value instanceof UploadInstead)) options[option.name] = value;
  }
  return options;
}

/** The file given as `--<option> @path` for an option that may be uploaded instead, if any. */
export function uploadedInstead(
  option: OptionInfo,
  values: Readonly<Record<string, unknown>>,
): string | undefined {
  const value = values[attributeOf(option)];
  return value instanceof UploadInstead ? value.path : undefined;
}
