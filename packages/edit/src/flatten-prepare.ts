import type { PdfDocument } from "@octavo/engines";
import { currentMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";
import { forEachAnnotation } from "./flatten-survey.js";
import { nameOf, objectAt } from "./pdf-objects.js";

/** What bake() is to draw into the pages. */
export interface Baking {
  forms: boolean;
  annotations: boolean;
}

/**
 * Readies the widgets and annotations for bake(), so each is drawn where and as a viewer showed it.
 * Runs before any page is loaded, which makes MuPDF draw missing appearances for display.
 */
export function prepareForBake(doc: PdfDocument, baking: Baking): void {
  const mupdf = currentMupdf();
  makeAnnotationsIndirect(doc);
  dropEmptyAppearances(mupdf, doc, baking);
  if (baking.forms) redrawStaleFields(doc);
  if (baking.annotations) pinUnzoomedAnnotations(mupdf, doc);
}

/**
 * Annotations written inline in /Annots (some generators do; the PDF specification wants references) get
 * their appearance drawn for display in place, pointing at objects that bake() can no longer reach:
 * such an annotation would vanish instead of being drawn. As objects of their own they are drawn.
 */
function makeAnnotationsIndirect(doc: PdfDocument): void {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const annotations = doc.findPage(index).get("Annots");
    if (!annotations.isArray()) continue;
    for (let item = 0; item < annotations.length; item += 1) {
      const annotation = annotations.get(item);
      if (annotation.isDictionary() && !annotation.isIndirect())
        annotations.put(item, doc.addObject(annotation));
    }
  }
}

/**
 * An appearance whose box (BBox through its Matrix) has no width or no height shows nothing, and bake()
 * would scale it by width over zero into the page: numbers beyond any limit, which `qpdf --check`
 * rejects (pdfjs_issue14438_chi_sim.pdf has four such Ink annotations). Such annotations go unbaked.
 */
function dropEmptyAppearances(mupdf: MupdfModule, doc: PdfDocument, baking: Baking): void {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const annotations = doc.findPage(index).get("Annots");
    if (!annotations.isArray()) continue;
    for (let item = annotations.length - 1; item >= 0; item -= 1) {
      const annotation = objectAt(annotations, item);
      const isWidget = nameOf(objectAt(annotation, "Subtype")) === "Widget";
      if (!(isWidget ? baking.forms : baking.annotations)) continue;
      const appearance = normalAppearance(annotation);
      if (appearance === undefined) continue;
      const [x0, y0, x1, y1] = appearanceBox(mupdf, appearance);
      if (!(Math.abs(x1 - x0) > 0 && Math.abs(y1 - y0) > 0)) annotations.delete(item);
    }
  }
}

/** The appearance's BBox through its Matrix; an unreadable box is empty, an unreadable matrix the identity. */
function appearanceBox(mupdf: MupdfModule, appearance: Mupdf.PDFObject): Mupdf.Rect {
  const box = numbers(objectAt(appearance, "BBox"));
  const matrix = numbers(objectAt(appearance, "Matrix"));
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = box.length === 4 ? box : [];
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = matrix.length === 6 ? matrix : [];
  return mupdf.Rect.transform([x0, y0, x1, y1], [a, b, c, d, e, f]);
}

/** The stream bake() draws: /AP /N itself, or the state /AS names in it. */
function normalAppearance(annotation: Mupdf.PDFObject): Mupdf.PDFObject | undefined {
  const normal = objectAt(annotation, "AP", "N");
  if (normal.isStream()) return normal;
  const state = objectAt(annotation, "AS");
  const chosen = state.isName() ? objectAt(normal, state.asName()) : undefined;
  return chosen?.isStream() ? chosen : undefined;
}

function numbers(array: Mupdf.PDFObject): number[] {
  const values: number[] = [];
  for (let index = 0; array.isArray() && index < array.length; index += 1) {
    const value = objectAt(array, index);
    if (value.isNumber()) values.push(value.asNumber());
  }
  return values;
}

/**
 * With /NeedAppearances true a viewer draws text and choice fields from their values, so the stored
 * appearances may be stale (a tool filled the value only). Those appearances are dropped for bake() to
 * draw anew from the values; buttons keep theirs, whose on and off states the value only selects.
 */
function redrawStaleFields(doc: PdfDocument): void {
  const needAppearances = objectAt(doc.getTrailer(), "Root", "AcroForm", "NeedAppearances");
  if (!needAppearances.isBoolean() || !needAppearances.asBoolean()) return;
  for (let index = 0; index < doc.countPages(); index += 1) {
    forEachAnnotation(doc.findPage(index), (annotation) => {
      if (nameOf(annotation.get("Subtype")) !== "Widget") return;
      const fieldType = nameOf(annotation.getInheritable("FT"));
      if ((fieldType === "Tx" || fieldType === "Ch") && !annotation.get("AP").isNull())
        annotation.delete("AP");
    });
  }
}

/**
 * Viewers draw an annotation flagged NoZoom, and every note (Text) annotation, at its appearance's own
 * size from the top left corner of its rectangle; bake() would stretch the appearance over the
 * rectangle instead, so the rectangle is set to where the viewer draws it.
 */
function pinUnzoomedAnnotations(mupdf: MupdfModule, doc: PdfDocument): void {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = doc.loadPage(index);
    const toPdfSpace = mupdf.Matrix.invert(page.getTransform());
    for (const annotation of page.getAnnotations()) {
      // MuPDF's flags include NoZoom for Text annotations, as viewers treat them.
      if ((annotation.getFlags() & mupdf.PDFAnnotation.IS_NO_ZOOM) === 0) continue;
      annotation.getObject().put("Rect", mupdf.Rect.transform(annotation.getBounds(), toPdfSpace));
    }
  }
}
