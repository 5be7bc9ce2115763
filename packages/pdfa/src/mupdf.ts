import { readFile } from "node:fs/promises";
import type { Mupdf } from "@octavo/mupdf";
import { currentMupdf, loadMupdf, type MupdfModule } from "@octavo/mupdf";

export { loadMupdf, type MupdfModule };
export type PdfDocument = Mupdf.PDFDocument;
export type PdfObject = Mupdf.PDFObject;

/** Runs `use` on the opened PDF and frees the WASM memory afterwards. Throws when MuPDF cannot open it. */
export async function withPdf<T>(path: string, use: (doc: PdfDocument, mupdf: MupdfModule) => T): Promise<T> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    return use(doc, mupdf);
  } finally {
    doc.destroy();
  }
}

/** The name a PDF object holds, or undefined. */
export function nameOf(obj: PdfObject): string | undefined {
  return obj.isName() ? obj.asName() : undefined;
}

/** The number a PDF object holds, or undefined. */
export function numberOf(obj: PdfObject): number | undefined {
  return obj.isNumber() ? obj.asNumber() : undefined;
}

/** The text of a string object, or undefined. */
export function stringOf(obj: PdfObject): string | undefined {
  return obj.isString() ? obj.asString() : undefined;
}

/** A dictionary's keys. */
export function keysOf(dict: PdfObject): string[] {
  const keys: string[] = [];
  if (!dict.isDictionary()) return keys;
  dict.forEach((_value, key) => {
    if (typeof key === "string") keys.push(key);
  });
  return keys;
}

/** An array's items, or a single object as a one-item list; nothing for null. */
export function itemsOf(obj: PdfObject): PdfObject[] {
  if (obj.isArray()) {
    const items: PdfObject[] = [];
    for (let index = 0; index < obj.length; index += 1) items.push(obj.get(index));
    return items;
  }
  return obj.isNull() ? [] : [obj];
}

/**
 * Visits every dictionary of the file once: each indirect object (streams included) and the direct
 * dictionaries nested in it, never following references, so shared and cyclic structures cost nothing
 * extra. `key` is the entry that holds the dictionary ("" for an indirect object itself).
 */
export function forEachDictionary(
  doc: PdfDocument,
  visit: (dict: PdfObject, key: string, objectNumber: number) => void,
): void {
  const count = doc.countObjects();
  for (let number = 1; number < count; number += 1) {
    const ref = doc.newIndirect(number);
    // A stream is only a stream through its reference: the resolved object is its bare dictionary, on
    // which isStream() is false and readStream() fails. Streams are visited as references for that reason.
    const obj = ref.isStream() ? ref : ref.resolve();
    walkDirect(obj, "", number, visit);
  }
}

function walkDirect(
  obj: PdfObject,
  key: string,
  objectNumber: number,
  visit: (dict: PdfObject, key: string, objectNumber: number) => void,
): void {
  if (obj.isDictionary()) {
    visit(obj, key, objectNumber);
    obj.forEach((value, childKey) => {
      if (!value.isIndirect() && (value.isDictionary() || value.isArray())) {
        walkDirect(value, String(childKey), objectNumber, visit);
      }
    });
  } else if (obj.isArray()) {
    for (let index = 0; index < obj.length; index += 1) {
      const value = obj.get(index);
      if (!value.isIndirect() && (value.isDictionary() || value.isArray())) {
        walkDirect(value, key, objectNumber, visit);
      }
    }
  }
}

/** A stream's decoded bytes as a Node Buffer. */
export function streamBytes(stream: PdfObject): Buffer {
  return Buffer.from(stream.readStream().asUint8Array());
}

/**
 * Follows a path of dictionary keys and array indexes; any missing or mistyped step gives PDF null
 * (MuPDF.js throws when `get` is called on its null object).
 */
export function field(obj: PdfObject, ...path: (string | number)[]): PdfObject {
  let current = obj;
  for (const key of path) {
    const fits = typeof key === "number" ? current.isArray() : current.isDictionary();
    if (!fits) return nullObject();
    current = current.get(key);
  }
  return current;
}

function nullObject(): PdfObject {
  return currentMupdf().PDFObject.Null;
}

/** Deletes an annotation and the pop-up window that belongs to it. */
export function deleteAnnotation(page: Mupdf.PDFPage, annotation: Mupdf.PDFAnnotation): void {
  const popup = annotation.getObject().get("Popup");
  page.deleteAnnotation(annotation);
  if (!popup.isIndirect()) return;
  const annots = page.getObject().get("Annots");
  if (!annots.isArray()) return;
  for (let index = annots.length - 1; index >= 0; index -= 1) {
    const item = annots.get(index);
    if (item.isIndirect() && item.asIndirect() === popup.asIndirect()) annots.delete(index);
  }
}
