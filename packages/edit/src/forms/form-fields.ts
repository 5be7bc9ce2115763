import type { PdfDocument } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { forEachAnnotation } from "../flatten-survey.js";
import { nameOf, objectAt } from "../pdf-objects.js";

/*
 * The AcroForm's fields as forms/read reports them and forms/fill fills them: the /Fields tree walked
 * from its roots, each terminal field with its fully qualified name and the widgets that draw it.
 */

export type FieldType = "text" | "checkbox" | "radio" | "choice" | "signature" | "button";

/** Field flags (/Ff), PDF 32000-1:2008 tables 221, 226, 228 and 230. */
export const fieldFlags = {
  readOnly: 1 << 0,
  required: 1 << 1,
  multiline: 1 << 12,
  password: 1 << 13,
  radio: 1 << 15,
  pushButton: 1 << 16,
  combo: 1 << 17,
  edit: 1 << 18,
  multiSelect: 1 << 21,
  comb: 1 << 24,
} as const;

/** A value a field can take: its export value, what the viewer shows, and for buttons the appearance state. */
export interface FieldChoice {
  value: string;
  label: string;
  /** Checkboxes and radio groups: the name of the widgets' "on" appearance state for this value. */
  state?: string;
}

export interface Field {
  name: string;
  type: FieldType;
  /** The terminal field's dictionary, where /V goes. */
  object: Mupdf.PDFObject;
  widgets: FieldWidget[];
  flags: number;
  maxLength: number | undefined;
  choices: FieldChoice[];
}

export interface FieldWidget {
  object: Mupdf.PDFObject;
  /** 0-based; undefined when no page lists the widget among its annotations. */
  pageIndex: number | undefined;
  /** [left, bottom, right, top] in the page's default user space. */
  rect: [number, number, number, number];
}

/** Fields deeper than this are not read: a form's tree is a few levels deep, a loop is not. */
const maxDepth = 32;

/** Every terminal field of the document's AcroForm, in the order of the /Fields tree. */
export function readFields(doc: PdfDocument): Field[] {
  const roots = objectAt(doc.getTrailer(), "Root", "AcroForm", "Fields");
  if (!roots.isArray()) return [];
  const pages = widgetPages(doc);
  const fields: Field[] = [];
  const seen = new Set<number>();
  const visit = (node: Mupdf.PDFObject, parentName: string | undefined, depth: number): void => {
    if (!node.isDictionary() || depth > maxDepth) return;
    if (node.isIndirect()) {
      if (seen.has(node.asIndirect())) return;
      seen.add(node.asIndirect());
    }
    const partial = node.get("T");
    const name = partial.isString()
      ? parentName === undefined
        ? partial.asString()
        : `${parentName}.${partial.asString()}`
      : parentName;
    const kids = node.get("Kids");
    const childFields = kids.isArray() ? arrayItems(kids).filter((kid) => kid.get("T").isString()) : [];
    if (childFields.length > 0) {
      for (const kid of childFields) visit(kid, name, depth + 1);
      return;
    }
    if (name === undefined) return;
    const widgetObjects = kids.isArray() ? arrayItems(kids).filter((kid) => kid.isDictionary()) : [node];
    fields.push(describeField(node, name, widgetObjects, pages));
  };
  for (const root of arrayItems(roots)) visit(root, undefined, 0);
  return fields;
}

function describeField(
  object: Mupdf.PDFObject,
  name: string,
  widgetObjects: Mupdf.PDFObject[],
  pages: Map<number, number>,
): Field {
  const flags = numberOf(object.getInheritable("Ff")) ?? 0;
  const type = fieldTypeOf(nameOf(object.getInheritable("FT")), flags);
  const maxLength = numberOf(object.getInheritable("MaxLen"));
  const widgets = widgetObjects.map((widget) => ({
    object: widget,
    pageIndex: widget.isIndirect() ? pages.get(widget.asIndirect()) : undefined,
    rect: rectOf(widget),
  }));
  return {
    name,
    type,
    object,
    widgets,
    flags,
    maxLength: type === "text" && maxLength !== undefined && maxLength > 0 ? maxLength : undefined,
    choices:
      type === "choice"
        ? listChoices(object)
        : type === "radio" || type === "checkbox"
          ? buttonChoices(object, widgets)
          : [],
  };
}

function fieldTypeOf(fieldType: string | undefined, flags: number): FieldType {
  switch (fieldType) {
    case "Tx":
      return "text";
    case "Ch":
      return "choice";
    case "Sig":
      return "signature";
    case "Btn":
      if (flags & fieldFlags.pushButton) return "button";
      return flags & fieldFlags.radio ? "radio" : "checkbox";
    default:
      // A field without /FT anywhere up its tree holds no value a viewer would show.
      return "button";
  }
}

/** /Opt of a choice: each entry an export value, or [export value, shown text]. */
function listChoices(field: Mupdf.PDFObject): FieldChoice[] {
  const options = field.getInheritable("Opt");
  if (!options.isArray()) return [];
  return arrayItems(options).flatMap((option) => {
    if (option.isString()) return [{ value: option.asString(), label: option.asString() }];
    if (option.isArray() && option.length >= 2) {
      const value = option.get(0);
      const label = option.get(1);
      if (value.isString()) {
        return [{ value: value.asString(), label: label.isString() ? label.asString() : value.asString() }];
      }
    }
    return [];
  });
}

/**
 * A button's values are the "on" states of its widgets' appearances; where the field has /Opt, the k-th
 * entry is the export value of the k-th widget (the states are then often "0", "1", …).
 */
function buttonChoices(field: Mupdf.PDFObject, widgets: FieldWidget[]): FieldChoice[] {
  const options = field.getInheritable("Opt");
  const choices: FieldChoice[] = [];
  widgets.forEach((widget, index) => {
    const state = onStateOf(widget.object);
    if (state === undefined) return;
    const option = options.isArray() && index < options.length ? options.get(index) : undefined;
    const value = option?.isString() ? option.asString() : state;
    if (!choices.some((choice) => choice.state === state)) choices.push({ value, label: value, state });
  });
  return choices;
}

/** The name of a button widget's "on" appearance: its normal appearance's state other than Off. */
export function onStateOf(widget: Mupdf.PDFObject): string | undefined {
  const states = appearanceStates(widget);
  return states.find((state) => state !== "Off");
}

export function appearanceStates(widget: Mupdf.PDFObject): string[] {
  const normal = objectAt(widget, "AP", "N");
  const states: string[] = [];
  if (normal.isDictionary() && !normal.isStream()) {
    normal.forEach((_, key) => {
      states.push(String(key));
    });
  }
  return states;
}

/** Object number of each widget annotation → the 0-based index of the page that lists it. */
function widgetPages(doc: PdfDocument): Map<number, number> {
  const pages = new Map<number, number>();
  for (let index = 0; index < doc.countPages(); index += 1) {
    forEachAnnotation(doc.findPage(index), (annotation) => {
      if (annotation.isIndirect() && !pages.has(annotation.asIndirect()))
        pages.set(annotation.asIndirect(), index);
    });
  }
  return pages;
}

function rectOf(widget: Mupdf.PDFObject): [number, number, number, number] {
  const rect = widget.get("Rect");
  const at = (index: number): number => (rect.isArray() ? (numberOf(rect.get(index)) ?? 0) : 0);
  const [x0, y0, x1, y1] = [at(0), at(1), at(2), at(3)];
  return [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
}

export function numberOf(value: Mupdf.PDFObject): number | undefined {
  return value.isNumber() ? value.asNumber() : undefined;
}

export function arrayItems(array: Mupdf.PDFObject): Mupdf.PDFObject[] {
  const items: Mupdf.PDFObject[] = [];
  for (let index = 0; index < array.length; index += 1) items.push(array.get(index));
  return items;
}

/** A text string or a text stream (/V may be either) as a JavaScript string. */
export function textOf(value: Mupdf.PDFObject): string | undefined {
  if (value.isString()) return value.asString();
  if (value.isStream()) return value.readStream().asString();
  return undefined;
}
