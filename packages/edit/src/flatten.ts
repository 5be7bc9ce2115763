import {
  badOutput,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  type PdfDocument,
} from "@octavo/engines";
import { editPdf } from "./edit-pdf.js";
import { prepareForBake } from "./flatten-prepare.js";
import { type FlattenSurvey, surveyDocument } from "./flatten-survey.js";
import { nameOf, objectAt } from "./pdf-objects.js";
import { compactingSave } from "./save-checked.js";

export interface FlattenOptions {
  /** Form fields (widgets) become page content and the AcroForm goes. */
  forms: boolean;
  /**
   * Every other annotation becomes page content (markup, stamps, notes) or goes (links, which show
   * nothing: a flattened page is what it shows). With false, links and markup stay interactive.
   */
  annotations: boolean;
}

/**
 * Draws form fields and annotations into the page content with MuPDF's bake, so what a viewer showed
 * stays where it was while nothing on the page remains editable. Hidden annotations go without a trace,
 * as a viewer shows nothing of them.
 */
export function flatten(
  input: EngineInput,
  options: FlattenOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return editPdf(input, ctx, "flatten", (_source, name) => ({
    purpose: "flatten it",
    saveOptions: compactingSave,
    needsReadableContent: false,
    edit: (doc) => flattenDocument(doc, options, name),
    verify: (doc) => checkFlattened(doc, options, name),
    warnings: (notes) => notes,
  }));
}

/** Flattens in place what the options ask for; returns the warnings for the client. */
export function flattenDocument(doc: PdfDocument, options: FlattenOptions, name: string): string[] {
  const survey = surveyDocument(doc);
  const forms = options.forms && (survey.widgets > 0 || survey.acroForm);
  const annotations = options.annotations && survey.markup + survey.links > 0;
  if (!forms && !annotations) return [nothingToFlatten(name, options)];

  prepareForBake(doc, { forms, annotations });
  // bake() draws each widget's or annotation's normal appearance (made first where there is none) into
  // its page and removes it; links it leaves, and with widgets it deletes the AcroForm.
  doc.bake(annotations, forms);
  const warnings: string[] = [];
  if (forms) warnings.push(...formWarnings(doc, survey, name));
  if (annotations && survey.links > 0) {
    removeLinks(doc);
    warnings.push(
      `${count(survey.links, "link")} of ${name} ${survey.links === 1 ? "was" : "were"} removed with the other annotations; flatten with annotations set to false to keep links (and markup) interactive.`,
    );
  }
  return warnings;
}

function nothingToFlatten(name: string, options: FlattenOptions): string {
  if (!options.forms && !options.annotations) {
    return `Neither forms nor annotations were chosen, so nothing in ${name} was flattened; it was rewritten unchanged.`;
  }
  const what =
    options.forms && options.annotations
      ? "form fields or annotations"
      : options.forms
        ? "form fields"
        : "annotations";
  return `${name} has no ${what}, so there was nothing to flatten; it was rewritten unchanged.`;
}

function formWarnings(doc: PdfDocument, survey: FlattenSurvey, name: string): string[] {
  // A dynamic XFA form asks viewers to draw it from its XFA data; without the form that is void.
  objectAt(doc.getTrailer(), "Root").delete("NeedsRendering");
  const warnings: string[] = [];
  if (survey.xfa) {
    warnings.push(
      survey.widgets > 0
        ? `${name} also held an XFA form: its AcroForm fields were flattened and the XFA data removed, so the result shows the fields as viewers without XFA showed them.`
        : `${name} is an XFA-only form, which cannot be flattened: its XFA data was removed and the pages keep only their static content.`,
    );
  }
  if (survey.signatures > 0) {
    warnings.push(
      `${count(survey.signatures, "digital signature")} of ${name} ${survey.signatures === 1 ? "was" : "were"} removed with the form; ${survey.signatures === 1 ? "its" : "their"} appearance stays on the page but can no longer be verified.`,
    );
  }
  return warnings;
}

/** Drops the link annotations bake() leaves; a page left without annotations loses its /Annots. */
function removeLinks(doc: PdfDocument): void {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = doc.findPage(index);
    const annotations = page.get("Annots");
    if (!annotations.isArray()) continue;
    for (let item = annotations.length - 1; item >= 0; item -= 1) {
      if (nameOf(objectAt(annotations, item, "Subtype")) === "Link") annotations.delete(item);
    }
    if (annotations.length === 0) page.delete("Annots");
  }
}

/** bake() gives up silently on a page it cannot process: the output is checked for what must be gone. */
export function checkFlattened(doc: PdfDocument, options: FlattenOptions, name: string): void {
  const left = surveyDocument(doc);
  if (options.forms && (left.widgets > 0 || left.acroForm)) {
    throw badOutput(name, `${count(left.widgets, "form field widget")} remained`);
  }
  if (options.annotations && left.markup + left.links > 0) {
    throw badOutput(name, `${count(left.markup + left.links, "annotation")} remained`);
  }
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? "" : "s"}`;
}
