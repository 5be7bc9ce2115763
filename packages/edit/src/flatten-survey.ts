import type { PdfDocument } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { nameOf, objectAt } from "./pdf-objects.js";

/** What a document holds that flattening may turn into page content. */
export interface FlattenSurvey {
  /** Widget annotations on the pages (one form field may have several). */
  widgets: number;
  /** Annotations that are neither widgets nor links: markup, stamps, notes and their popups. */
  markup: number;
  links: number;
  /** The catalog has an /AcroForm dictionary (possibly with no fields left). */
  acroForm: boolean;
  /** The form carries XFA data, which only some viewers use and flattening drops. */
  xfa: boolean;
  /** Signature fields that hold a signature. */
  signatures: number;
}

/** Counts, page by page, the annotations in each page's /Annots array by their /Subtype. */
export function surveyDocument(doc: PdfDocument): FlattenSurvey {
  const survey: FlattenSurvey = {
    widgets: 0,
    markup: 0,
    links: 0,
    acroForm: false,
    xfa: false,
    signatures: 0,
  };
  for (let index = 0; index < doc.countPages(); index += 1) {
    forEachAnnotation(doc.findPage(index), (annotation) => {
      const subtype = nameOf(annotation.get("Subtype"));
      if (subtype === "Widget") {
        survey.widgets += 1;
        if (isSignedSignature(annotation)) survey.signatures += 1;
      } else if (subtype === "Link") survey.links += 1;
      else survey.markup += 1;
    });
  }
  const form = objectAt(doc.getTrailer(), "Root", "AcroForm");
  survey.acroForm = form.isDictionary();
  survey.xfa = !objectAt(form, "XFA").isNull();
  return survey;
}

export function forEachAnnotation(page: Mupdf.PDFObject, visit: (annotation: Mupdf.PDFObject) => void): void {
  const annotations = page.get("Annots");
  if (!annotations.isArray()) return;
  for (let index = 0; index < annotations.length; index += 1) {
    const annotation = annotations.get(index);
    if (annotation.isDictionary()) visit(annotation);
  }
}

function isSignedSignature(widget: Mupdf.PDFObject): boolean {
  return nameOf(widget.getInheritable("FT")) === "Sig" && widget.getInheritable("V").isDictionary();
}
