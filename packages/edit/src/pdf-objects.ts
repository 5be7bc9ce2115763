import { currentMupdf, type Mupdf } from "@octavo/mupdf";

/**
 * The object at `path` below `object`, or PDF null when a step is missing. MuPDF.js's get() on a null
 * object throws a TypeError, so a missing /AcroForm or a null in an /Annots array must stop here.
 */
export function objectAt(object: Mupdf.PDFObject, ...path: (string | number)[]): Mupdf.PDFObject {
  let current = object;
  for (const key of path) {
    const fits = typeof key === "number" ? current.isArray() : current.isDictionary();
    if (!fits) return currentMupdf().PDFObject.Null;
    current = current.get(key);
  }
  return current;
}

export function nameOf(value: Mupdf.PDFObject): string | undefined {
  return value.isName() ? value.asName() : undefined;
}
