import {
  type EngineContext,
  type EngineInput,
  type EngineResult,
  JobFailure,
  type PdfDocument,
} from "@octavo/engines";
import { currentMupdf } from "@octavo/mupdf";
import { editPdf } from "../edit-pdf.js";
import { checkFlattened, flattenDocument } from "../flatten.js";
import { objectAt } from "../pdf-objects.js";
import { compactingSave } from "../save-checked.js";
import { FormAppearances } from "./fill-appearance.js";
import { expectedValue, type FormValue, type PlannedValue, planValues, writeValues } from "./fill-values.js";
import { type Field, fieldFlags, readFields } from "./form-fields.js";
import { currentValue, dynamicXfaNote, formKindOf } from "./read-form.js";

export interface FillFormOptions {
  values: Record<string, FormValue>;
  flatten: boolean;
  force: boolean;
}

interface Filled {
  planned: PlannedValue[];
  warnings: string[];
}

/**
 * forms/fill: every value checked against its field first (one failure names each refused field), then
 * written with the appearances that show it, so the form needs no viewer to draw it (/NeedAppearances
 * goes). A static XFA form loses its XFA data, which would otherwise show the old values in XFA viewers.
 */
export function fillForm(
  input: EngineInput,
  options: FillFormOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return editPdf<Filled>(input, ctx, "forms-fill", (_source, name) => ({
    purpose: "fill its form",
    saveOptions: compactingSave,
    needsReadableContent: false,
    edit: (doc) => fill(doc, options, name),
    verify: (doc, filled) => checkFilled(doc, filled, options, name),
    warnings: (filled) => filled.warnings,
  }));
}

function fill(doc: PdfDocument, options: FillFormOptions, name: string): Filled {
  const fields = readFields(doc);
  const kind = formKindOf(doc, fields);
  if (kind === "xfa-dynamic") throw new JobFailure("conversion_failed", dynamicXfaNote(name));
  if (kind === "none") {
    throw new JobFailure(
      "invalid_options",
      `${name} has no form fields, so values cannot be filled into it.`,
    );
  }
  const planned = planValues(fields, options.values, options.force, name);
  const form = objectAt(doc.getTrailer(), "Root", "AcroForm");
  const viewersDrew = objectAt(form, "NeedAppearances");
  const appearances = new FormAppearances(currentMupdf(), doc);
  try {
    writeValues(doc, planned, appearances);
    // Values the file left for viewers to draw are drawn too, since viewers are no longer asked to.
    const filled = new Set(planned.map((item) => item.field.name));
    for (const field of fields) {
      if (filled.has(field.name) || !needsDrawing(field, viewersDrew.isBoolean() && viewersDrew.asBoolean()))
        continue;
      const value = currentValue(field);
      if (field.type === "text" && typeof value === "string") appearances.text(field, value);
      if (field.type === "choice" && value !== null && typeof value !== "boolean")
        appearances.choice(field, Array.isArray(value) ? value : [value]);
    }
    appearances.write();
  } finally {
    appearances.destroy();
  }
  form.delete("NeedAppearances");
  const warnings: string[] = [];
  if (kind === "xfa-static") {
    form.delete("XFA");
    warnings.push(
      `${name} also held an XFA form; its XFA data was removed so that every viewer shows the values filled into its AcroForm fields.`,
    );
  }
  if (options.flatten) warnings.push(...flattenDocument(doc, { forms: true, annotations: false }, name));
  return { planned, warnings };
}

/** A text or choice field with a value and no appearance of its own, or one the file left to viewers. */
function needsDrawing(field: Field, viewersDrew: boolean): boolean {
  if (field.type !== "text" && field.type !== "choice") return false;
  if (field.flags & fieldFlags.readOnly && !viewersDrew) return false;
  const value = currentValue(field);
  const empty = value === null || value === "" || (Array.isArray(value) && value.length === 0);
  if (empty) return false;
  return viewersDrew || field.widgets.some((widget) => !objectAt(widget.object, "AP", "N").isStream());
}

/** The saved file holds every value asked for (or, flattened, no form left). */
function checkFilled(doc: PdfDocument, filled: Filled, options: FillFormOptions, name: string): void {
  if (options.flatten) {
    checkFlattened(doc, { forms: true, annotations: false }, name);
    return;
  }
  const byName = new Map(readFields(doc).map((field) => [field.name, field]));
  for (const item of filled.planned) {
    const field = byName.get(item.field.name);
    const found = field === undefined ? undefined : currentValue(field);
    if (JSON.stringify(found) !== JSON.stringify(expectedValue(item))) {
      throw new JobFailure(
        "conversion_failed",
        `The value of ${item.field.name} in ${name} did not hold after saving.`,
      );
    }
  }
}
