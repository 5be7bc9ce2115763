import type { Mupdf, MupdfModule } from "@octavo/mupdf";

type PdfObject = Mupdf.PDFObject;

/** What a later revision changed, by kind of object. */
export type ChangeKind =
  | "signature"
  | "form field"
  | "form"
  | "annotation"
  | "appearance"
  | "validation data"
  | "metadata"
  | "page content"
  | "document structure"
  | "other";

export interface Revision {
  /** Offset just past this revision's %%EOF. */
  end: number;
  changes: ChangeKind[];
  /** Whether every change is one the signatures before it allow. */
  allowed: boolean;
}

/** What approval signatures and each DocMDP level let later revisions do (ISO 32000-2, 12.8.2.2). */
export function allowedKinds(certification: 1 | 2 | 3 | undefined): ReadonlySet<ChangeKind> {
  // Signers update the XMP packet as they sign (pyHanko does); only a "no changes" certification forbids it.
  const signing: ChangeKind[] = [
    "signature",
    "form field",
    "form",
    "appearance",
    "validation data",
    "metadata",
  ];
  if (certification === 1) return new Set(["validation data"]);
  if (certification === 2) return new Set(signing);
  return new Set([...signing, "annotation"]);
}

/** The offsets just past each %%EOF after `from`: where each later revision ends. */
export function revisionEnds(file: Uint8Array, from: number): number[] {
  const text = Buffer.from(file).toString("latin1");
  const ends: number[] = [];
  for (let at = text.indexOf("%%EOF", from); at >= 0; at = text.indexOf("%%EOF", at + 5)) {
    let end = at + 5;
    while (end < text.length && (text[end] === "\r" || text[end] === "\n")) end += 1;
    ends.push(end);
  }
  return ends.length > 0 && (ends.at(-1) ?? 0) < file.length ? [...ends, file.length] : ends;
}

/**
 * Compares the document before a revision (`old`) with the document after it (`now`), object by object, and names
 * what changed: the kinds a signature allows (another signature and its field, a form filled, annotations,
 * their appearances, validation data) and the kinds it does not (page content, the page tree, fonts and
 * images in place, anything else).
 */
export function changesBetween(old: Mupdf.PDFDocument, now: Mupdf.PDFDocument): ChangeKind[] {
  const kinds = new Set<ChangeKind>();
  const count = now.countObjects();
  const known = old.countObjects();
  for (let number = 1; number < count; number += 1) {
    // Stream-ness belongs to the indirect reference, not to the dictionary it resolves to.
    const current = now.newIndirect(number);
    const previous = number < known ? old.newIndirect(number) : undefined;
    const added = previous === undefined || previous.resolve().isNull();
    if (!added && same(previous, current)) continue;
    if (current.resolve().isNull()) {
      if (!added) kinds.add("other");
      continue;
    }
    const kind = kindOf(current, added, previous);
    if (kind !== undefined) kinds.add(kind);
  }
  return [...kinds];
}

function same(a: PdfObject, b: PdfObject): boolean {
  if (a.resolve().toString(true) !== b.resolve().toString(true)) return false;
  if (!a.isStream() || !b.isStream()) return a.isStream() === b.isStream();
  return Buffer.compare(a.readRawStream().asUint8Array(), b.readRawStream().asUint8Array()) === 0;
}

function name(object: PdfObject, key: string): string | undefined {
  const value = object.get(key);
  return value.isName() ? value.asName() : undefined;
}

const resources = new Set([
  "Font",
  "FontDescriptor",
  "Encoding",
  "XObject",
  "ExtGState",
  "Pattern",
  "Shading",
]);

/** The kind of a changed or added object (indirect references); undefined for what cannot show by itself. */
function kindOf(reference: PdfObject, added: boolean, before: PdfObject | undefined): ChangeKind | undefined {
  const object = reference.isStream() ? reference : reference.resolve();
  const previous = before?.resolve();
  // A new array or number means nothing until a changed object points at it, and that one is classed.
  if (object.isArray()) return added ? undefined : arrayChange(object);
  if (!object.isDictionary() && !object.isStream()) return added ? undefined : "other";
  const type = name(object, "Type");
  const subtype = name(object, "Subtype");
  if (type === "XRef" || type === "ObjStm") return undefined;
  // Some signers leave out the signature dictionary's /Type; its byte range and contents say what it is.
  if (
    type === "Sig" ||
    type === "DocTimeStamp" ||
    (!object.get("ByteRange").isNull() && !object.get("Contents").isNull())
  ) {
    return "signature";
  }
  const validationKeys = ["Certs", "OCSPs", "CRLs", "VRI"];
  if (type === "DSS" || type === "VRI" || validationKeys.some((key) => !object.get(key).isNull())) {
    return "validation data";
  }
  if (type === "Metadata") return "metadata";
  if (subtype === "Widget" || object.get("FT").isName() || !object.get("T").isNull()) return "form field";
  if (type === "Annot" || (subtype !== undefined && !object.get("Rect").isNull() && type !== "XObject")) {
    return "annotation";
  }
  if (type === "Catalog") return catalogChange(object, previous);
  if (type === "Page") return pageChange(object, previous);
  if (object.get("Fields").isArray()) return "form";
  if (type === "Pages") return "document structure";
  // Anything else that is new only shows if a changed object points at it, and that one is classed: the
  // new appearances and their fonts, and the certificates and OCSP answers of validation data. Changed,
  // such an object is what the signed revision drew.
  if (added) return subtype === "Form" || type === "Font" ? "appearance" : undefined;
  return object.isStream() || resources.has(type ?? "") ? "page content" : "other";
}

/**
 * An existing array that changed, by what it holds: a page's annotations, the form's fields, or anything else
 * (a page's content streams among them).
 */
function arrayChange(array: PdfObject): ChangeKind {
  const items = Array.from({ length: array.length }, (_, index) => array.get(index));
  if (
    items.length > 0 &&
    items.every((item) => name(item, "Subtype") === "Widget" || item.get("FT").isName())
  ) {
    return "form field";
  }
  if (items.length > 0 && items.every((item) => item.isDictionary() && !item.get("Rect").isNull())) {
    return "annotation";
  }
  return "other";
}

/** A catalog that only gained a form, validation data or permissions. */
function catalogChange(object: PdfObject, previous: PdfObject | undefined): ChangeKind {
  // A PDF 2.0 DSS may raise the version and name its extension level; signers update the XMP packet.
  const keys = ["AcroForm", "DSS", "Perms", "Extensions", "Version", "Metadata"];
  return onlyKeysChanged(object, previous, keys) ? "form" : "document structure";
}

/** A page that only gained annotations: a signature or form field's widget, or another annotation. */
function pageChange(object: PdfObject, previous: PdfObject | undefined): ChangeKind {
  if (!onlyKeysChanged(object, previous, ["Annots"])) return "page content";
  const before = new Set(annotationNumbers(previous?.get("Annots")));
  const after = annotationNumbers(object.get("Annots"));
  const removed = [...before].some((number) => !after.includes(number));
  const added = object.get("Annots");
  const widgetsOnly =
    !removed &&
    after.every((number, index) => before.has(number) || name(added.get(index), "Subtype") === "Widget");
  return widgetsOnly ? "form field" : "annotation";
}

function annotationNumbers(annots: PdfObject | undefined): number[] {
  if (annots === undefined || !annots.isArray()) return [];
  const numbers: number[] = [];
  for (let index = 0; index < annots.length; index += 1) {
    const annot = annots.get(index);
    numbers.push(annot.isIndirect() ? annot.asIndirect() : -1 - index);
  }
  return numbers;
}

function onlyKeysChanged(object: PdfObject, previous: PdfObject | undefined, keys: string[]): boolean {
  if (previous === undefined || !previous.isDictionary()) return false;
  const names = new Set<string>();
  const addKey = (_: PdfObject, key: string | number): void => {
    names.add(String(key));
  };
  object.forEach(addKey);
  previous.forEach(addKey);
  for (const key of names) {
    if (keys.includes(key)) continue;
    if (object.get(key).toString(true) !== previous.get(key).toString(true)) return false;
  }
  return true;
}

/** Revisions classed one by one after a signature; a hostile file may append thousands. */
const maxRevisions = 32;

/** Each revision after the signed bytes end, with what it changed and whether `allowed` covers it. */
export function laterRevisions(
  mupdf: MupdfModule,
  file: Uint8Array,
  signedEnd: number,
  allowed: ReadonlySet<ChangeKind>,
): Revision[] {
  const revisions: Revision[] = [];
  const ends = revisionEnds(file, signedEnd).filter((end) => end > signedEnd);
  // Each revision is one more open of the file: past the cap, the rest is compared as one last revision.
  const compared = ends.length > maxRevisions ? [...ends.slice(0, maxRevisions - 1), file.length] : ends;
  // Each prefix is opened once: the document after one revision is the one before the next.
  let before = new mupdf.PDFDocument(file.slice(0, signedEnd));
  try {
    for (const end of compared) {
      const after = new mupdf.PDFDocument(file.slice(0, end));
      const changes = changesBetween(before, after);
      revisions.push({ end, changes, allowed: changes.every((kind) => allowed.has(kind)) });
      before.destroy();
      before = after;
    }
  } finally {
    before.destroy();
  }
  return revisions;
}
