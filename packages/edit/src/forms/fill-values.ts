import { JobFailure, type PdfDocument } from "@octavo/engines";
import type { FormAppearances } from "./fill-appearance.js";
import { appearanceStates, type Field, fieldFlags } from "./form-fields.js";

export type FormValue = string | boolean | string[];

/** A value checked against its field: what to write, in the field's terms. */
type Planned =
  | { field: Field; kind: "text"; text: string }
  | { field: Field; kind: "button"; state: string }
  | { field: Field; kind: "choice"; chosen: string[] };

/** How many refusals one failure lists; the rest are counted. */
const listedProblems = 5;

/**
 * Checks every value against its field before anything is written, and fails the job with
 * invalid_options naming each field refused and why.
 */
export function planValues(
  fields: Field[],
  values: Record<string, FormValue>,
  force: boolean,
  fileName: string,
): Planned[] {
  const byName = new Map(fields.map((field) => [field.name, field]));
  const problems: string[] = [];
  const planned: Planned[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = byName.get(name);
    const outcome =
      field === undefined ? unknownField(name, fields, fileName) : planValue(field, value, force);
    if (typeof outcome === "string") problems.push(`values["${name}"]: ${outcome}`);
    else planned.push(outcome);
  }
  if (problems.length > 0) {
    const more = problems.length > listedProblems ? ` (and ${problems.length - listedProblems} more)` : "";
    throw new JobFailure(
      "invalid_options",
      `${problems.length === 1 ? "A value" : `${problems.length} values`} cannot be filled into ${fileName}${more}: ${problems.slice(0, listedProblems).join("; ")}`,
    );
  }
  return planned;
}

function unknownField(name: string, fields: Field[], fileName: string): string {
  const endings = fields.filter((field) => field.name.endsWith(`.${name}`));
  const hint = endings.length === 1 ? ` Did you mean "${endings[0]?.name}"?` : "";
  return `${fileName} has no field of this name; forms/read lists the fully qualified names.${hint}`;
}

function planValue(field: Field, value: FormValue, force: boolean): Planned | string {
  if (field.type === "signature") return "a signature field is not filled; sign the PDF with /v1/sign.";
  if (field.type === "button") return "a push button holds no value.";
  if (field.flags & fieldFlags.readOnly && !force)
    return "the field is read-only; set force to fill it anyway.";
  switch (field.type) {
    case "text": {
      if (typeof value !== "string") return `a text field takes a string, not ${describe(value)}.`;
      const length = [...value].length;
      if (field.maxLength !== undefined && length > field.maxLength)
        return `the text has ${length} characters; the field takes at most ${field.maxLength}.`;
      return { field, kind: "text", text: value };
    }
    case "checkbox": {
      if (typeof value !== "boolean") return `a checkbox takes true or false, not ${describe(value)}.`;
      const on = field.choices[0]?.state;
      if (value && on === undefined) return "the checkbox has no checked appearance to show.";
      return { field, kind: "button", state: value ? (on ?? "Off") : "Off" };
    }
    case "radio": {
      if (typeof value !== "string")
        return `a radio group takes one of its export values, not ${describe(value)}.`;
      const choice = field.choices.find((option) => option.value === value);
      if (choice?.state === undefined)
        return `"${value}" is not one of the group's values (${listed(field)}).`;
      return { field, kind: "button", state: choice.state };
    }
    case "choice":
      return planChoice(field, value);
  }
}

function planChoice(field: Field, value: FormValue): Planned | string {
  const multi = (field.flags & fieldFlags.multiSelect) !== 0 && (field.flags & fieldFlags.combo) === 0;
  const editable = (field.flags & fieldFlags.combo) !== 0 && (field.flags & fieldFlags.edit) !== 0;
  if (typeof value === "boolean") return `a choice takes an export value, not ${describe(value)}.`;
  if (Array.isArray(value) && !multi)
    return "the field takes a single value, not a list; only multi-select list boxes take lists.";
  const chosen = Array.isArray(value) ? value : [value];
  const unknown = chosen.filter((item) => !field.choices.some((choice) => choice.value === item));
  if (unknown.length > 0 && !editable)
    return `${unknown.map((item) => `"${item}"`).join(", ")} ${unknown.length === 1 ? "is" : "are"} not among the field's options (${listed(field)}).`;
  return { field, kind: "choice", chosen };
}

function listed(field: Field): string {
  const values = field.choices.slice(0, 10).map((choice) => `"${choice.value}"`);
  const more = field.choices.length > 10 ? `, … ${field.choices.length - 10} more` : "";
  return values.length === 0 ? "it has none" : values.join(", ") + more;
}

function describe(value: FormValue): string {
  if (Array.isArray(value)) return "a list";
  return typeof value === "boolean" ? `the boolean ${value}` : `the string "${value}"`;
}

/** Writes the planned values into the fields and plans the appearances they need. */
export function writeValues(doc: PdfDocument, planned: Planned[], appearances: FormAppearances): void {
  for (const item of planned) {
    const { field } = item;
    // The field is set at its terminal dictionary; a value a widget carried would contradict it.
    for (const widget of field.widgets) if (widget.object !== field.object) widget.object.delete("V");
    field.object.delete("RV");
    switch (item.kind) {
      case "text":
        field.object.put("V", doc.newString(item.text));
        appearances.text(field, item.text);
        break;
      case "button":
        field.object.put("V", doc.newName(item.state));
        for (const widget of field.widgets) {
          const shows = appearanceStates(widget.object).includes(item.state);
          widget.object.put("AS", doc.newName(shows ? item.state : "Off"));
        }
        break;
      case "choice":
        writeChoice(doc, field, item.chosen);
        appearances.choice(field, item.chosen);
        break;
    }
  }
}

function writeChoice(doc: PdfDocument, field: Field, chosen: string[]): void {
  if (chosen.length === 1 && !(field.flags & fieldFlags.multiSelect)) {
    field.object.put("V", doc.newString(chosen[0] ?? ""));
  } else {
    const array = doc.newArray();
    for (const item of chosen) array.push(doc.newString(item));
    field.object.put("V", array);
  }
  // /I, the chosen options' indices, is what viewers highlight in a list box.
  const indices = field.choices.flatMap((choice, index) => (chosen.includes(choice.value) ? [index] : []));
  if (indices.length > 0) {
    const array = doc.newArray();
    for (const index of indices.sort((a, b) => a - b)) array.push(index);
    field.object.put("I", array);
  } else field.object.delete("I");
}

/** The value as written, to read back after the save. */
export function expectedValue(item: Planned): FormValue {
  if (item.kind === "text") return item.text;
  if (item.kind === "choice")
    return item.field.flags & fieldFlags.multiSelect ? item.chosen : (item.chosen[0] ?? "");
  if (item.field.type === "checkbox") return item.state !== "Off";
  return item.field.choices.find((choice) => choice.state === item.state)?.value ?? "";
}

export type { Planned as PlannedValue };
