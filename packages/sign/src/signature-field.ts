import { JobFailure, type PdfDocument } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";

type PdfObject = Mupdf.PDFObject;

/** The largest offset a ByteRange placeholder holds (MuPDF's integers are 32-bit); files stay below it. */
export const byteRangePlaceholder = 2_147_483_647;

export interface SignatureEntries {
  /** Bytes reserved for the CMS; /Contents holds twice as many hex digits. */
  contentsBytes: number;
  signingTime: Date;
  signerName: string;
  reason?: string | undefined;
  location?: string | undefined;
  contactInfo?: string | undefined;
  /** DocMDP P: 1 no changes, 2 form filling and signing, 3 those and annotations. */
  certify?: 1 | 2 | 3 | undefined;
}

/** Where the signature goes: the widget that shows it, on which page. */
export interface SignatureSlot {
  field: PdfObject;
  widget: PdfObject;
  /** 0-based. */
  pageIndex: number;
  /** In default user space; [0, 0, 0, 0] when the signature is invisible. */
  rect: [number, number, number, number];
  created: boolean;
}

/** `object`'s entry at the end of `keys`, or a null object where the path breaks off. */
export function entryAt(doc: PdfDocument, object: PdfObject, ...keys: string[]): PdfObject {
  let node = object;
  for (const key of keys) {
    if (!node.isDictionary()) return doc.newNull();
    node = node.get(key);
  }
  return node;
}

/** A field's full name: its /T and its parents', joined by ".". */
function fullName(field: PdfObject): string {
  const parts: string[] = [];
  for (
    let node = field, depth = 0;
    node.isDictionary() && depth < 32;
    node = node.get("Parent"), depth += 1
  ) {
    const title = node.get("T");
    if (title.isString()) parts.unshift(title.asString());
  }
  return parts.join(".");
}

/** A field's own entry, else its nearest parent's (FT, Ff and V are inherited). */
function inherited(field: PdfObject, key: string): PdfObject {
  let node = field;
  for (let depth = 0; depth < 32 && node.isDictionary(); depth += 1) {
    const value = node.get(key);
    if (!value.isNull()) return value;
    node = node.get("Parent");
  }
  return field.get(key);
}

/** Every terminal field of the AcroForm (one with no kids that are fields), bounded against loops. */
export function terminalFields(doc: PdfDocument): PdfObject[] {
  const fields = entryAt(doc, doc.getTrailer(), "Root", "AcroForm", "Fields");
  const found: PdfObject[] = [];
  const seen = new Set<number>();
  const visit = (node: PdfObject, depth: number): void => {
    if (depth > 32 || found.length > 10_000 || !node.isDictionary()) return;
    if (node.isIndirect()) {
      if (seen.has(node.asIndirect())) return;
      seen.add(node.asIndirect());
    }
    const kids = node.get("Kids");
    const fieldKids: PdfObject[] = [];
    if (kids.isArray()) {
      for (let index = 0; index < kids.length; index += 1) {
        const kid = kids.get(index);
        if (!kid.get("T").isNull()) fieldKids.push(kid);
      }
    }
    if (fieldKids.length === 0) found.push(node);
    for (const kid of fieldKids) visit(kid, depth + 1);
  };
  if (fields.isArray()) for (let index = 0; index < fields.length; index += 1) visit(fields.get(index), 0);
  return found;
}

/** Signature fields of the document, with their full names and whether they hold a signature. */
export function signatureFields(doc: PdfDocument): { name: string; field: PdfObject; signed: boolean }[] {
  return terminalFields(doc)
    .filter((field) => {
      const type = inherited(field, "FT");
      return type.isName() && type.asName() === "Sig";
    })
    .map((field) => ({ name: fullName(field), field, signed: field.get("V").isDictionary() }));
}

function widgetOf(field: PdfObject): PdfObject {
  const kids = field.get("Kids");
  return kids.isArray() && kids.length > 0 ? kids.get(0) : field;
}

function pageIndexOf(doc: PdfDocument, widget: PdfObject): number | undefined {
  const page = widget.get("P");
  const count = doc.countPages();
  for (let index = 0; index < count; index += 1) {
    const object = doc.findPage(index);
    if (page.isIndirect() && object.isIndirect() && page.asIndirect() === object.asIndirect()) return index;
    const annots = object.get("Annots");
    if (!annots.isArray()) continue;
    for (let at = 0; at < annots.length; at += 1) {
      const annot = annots.get(at);
      if (annot.isIndirect() && widget.isIndirect() && annot.asIndirect() === widget.asIndirect())
        return index;
    }
  }
  return undefined;
}

function rectOf(widget: PdfObject): [number, number, number, number] {
  const rect = widget.get("Rect");
  if (!rect.isArray() || rect.length !== 4) return [0, 0, 0, 0];
  const [x0, y0, x1, y1] = [0, 1, 2, 3].map((index) => rect.get(index).asNumber()) as [
    number,
    number,
    number,
    number,
  ];
  return [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
}

/**
 * The field the signature goes into: the named empty signature field, or a new one (named `fieldName`, or
 * the first free "SignatureN") whose widget sits on `pageIndex` at `rect`.
 */
export function signatureSlot(
  doc: PdfDocument,
  fieldName: string | undefined,
  pageIndex: number,
  rect: [number, number, number, number],
): SignatureSlot {
  const existing = signatureFields(doc);
  const named = fieldName === undefined ? undefined : existing.find((field) => field.name === fieldName);
  if (named !== undefined) {
    if (named.signed) {
      throw new JobFailure(
        "invalid_input",
        `The signature field "${fieldName}" is signed already; give options.fieldName a new name, or leave it out, to add a signature beside it.`,
      );
    }
    const widget = widgetOf(named.field);
    const at = pageIndexOf(doc, widget);
    if (at === undefined) {
      throw new JobFailure(
        "invalid_input",
        `The signature field "${fieldName}" is on no page of the document, so it cannot be signed; leave options.fieldName out to add a new field.`,
      );
    }
    return { field: named.field, widget, pageIndex: at, rect: rectOf(widget), created: false };
  }
  if (fieldName !== undefined && terminalFields(doc).some((field) => fullName(field) === fieldName)) {
    throw new JobFailure(
      "invalid_input",
      `The form field "${fieldName}" is not a signature field; give options.fieldName a name no other field has.`,
    );
  }
  const names = new Set(terminalFields(doc).map(fullName));
  let name = fieldName;
  for (let n = 1; name === undefined; n += 1) if (!names.has(`Signature${n}`)) name = `Signature${n}`;
  return createField(doc, name, pageIndex, rect);
}

function createField(
  doc: PdfDocument,
  name: string,
  pageIndex: number,
  rect: [number, number, number, number],
): SignatureSlot {
  const page = doc.findPage(pageIndex);
  const widget = doc.addObject(doc.newDictionary());
  widget.put("Type", doc.newName("Annot"));
  widget.put("Subtype", doc.newName("Widget"));
  widget.put("FT", doc.newName("Sig"));
  widget.put("T", doc.newString(name));
  // Print (4) and Locked (128): shown on paper, and not moved or deleted by a viewer.
  widget.put("F", doc.newInteger(132));
  widget.put("P", page);
  const rectArray = doc.newArray();
  for (const value of rect) rectArray.push(doc.newReal(value));
  widget.put("Rect", rectArray);
  let annots = page.get("Annots");
  if (!annots.isArray()) {
    page.put("Annots", doc.newArray());
    annots = page.get("Annots");
  }
  annots.push(widget);
  fieldsArray(doc).push(widget);
  return { field: widget, widget, pageIndex, rect, created: true };
}

function acroForm(doc: PdfDocument): PdfObject {
  const root = doc.getTrailer().get("Root");
  if (!root.get("AcroForm").isDictionary()) root.put("AcroForm", doc.addObject(doc.newDictionary()));
  return root.get("AcroForm");
}

function fieldsArray(doc: PdfDocument): PdfObject {
  const form = acroForm(doc);
  if (!form.get("Fields").isArray()) form.put("Fields", doc.newArray());
  return form.get("Fields");
}

/** D:YYYYMMDDHHmmSSZ, in UTC. */
export function pdfDate(date: Date): string {
  const iso = date.toISOString();
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/**
 * Writes the signature dictionary into `slot`'s field, with a /ByteRange of placeholders and a /Contents of
 * zeros to be filled once the file's bytes are known, and marks the form as signed (SigFlags 3: signatures
 * exist, and the file must only be appended to). A certification signature also becomes the catalog's
 * /Perms /DocMDP, with its permissions in a DocMDP reference.
 */
export function writeSignatureDictionary(
  doc: PdfDocument,
  slot: SignatureSlot,
  entries: SignatureEntries,
): number {
  const signature = doc.addObject(doc.newDictionary());
  signature.put("Type", doc.newName("Sig"));
  signature.put("Filter", doc.newName("Adobe.PPKLite"));
  signature.put("SubFilter", doc.newName("ETSI.CAdES.detached"));
  const byteRange = doc.newArray();
  for (const value of [0, byteRangePlaceholder, byteRangePlaceholder, byteRangePlaceholder])
    byteRange.push(doc.newInteger(value));
  signature.put("ByteRange", byteRange);
  signature.put("Contents", doc.newByteString(new Uint8Array(entries.contentsBytes)));
  signature.put("M", doc.newString(pdfDate(entries.signingTime)));
  signature.put("Name", doc.newString(entries.signerName));
  if (entries.reason) signature.put("Reason", doc.newString(entries.reason));
  if (entries.location) signature.put("Location", doc.newString(entries.location));
  if (entries.contactInfo) signature.put("ContactInfo", doc.newString(entries.contactInfo));
  if (entries.certify !== undefined) certify(doc, signature, entries.certify);
  slot.field.put("V", signature);
  acroForm(doc).put("SigFlags", doc.newInteger(3));
  return signature.asIndirect();
}

function certify(doc: PdfDocument, signature: PdfObject, permissions: 1 | 2 | 3): void {
  const params = doc.newDictionary();
  params.put("Type", doc.newName("TransformParams"));
  params.put("P", doc.newInteger(permissions));
  params.put("V", doc.newName("1.2"));
  const reference = doc.newDictionary();
  reference.put("Type", doc.newName("SigRef"));
  reference.put("TransformMethod", doc.newName("DocMDP"));
  reference.put("TransformParams", params);
  const references = doc.newArray();
  references.push(reference);
  signature.put("Reference", references);
  const root = doc.getTrailer().get("Root");
  const perms = doc.newDictionary();
  perms.put("DocMDP", signature);
  root.put("Perms", perms);
}
