import { writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { fixGhostscriptDate } from "@octavo/xmp";
import type { PdfALevel } from "./levels.js";
import { field, nameOf, type PdfDocument, type PdfObject, stringOf, withPdf } from "./mupdf.js";
import { fitNumbersToPdfA1 } from "./number-limits.js";
import { spellOutType3Encodings } from "./type3.js";

/** What an attachment of the prepared input said about itself, to carry over into the PDF/A-3 output. */
interface AttachmentFacts {
  mimeType: string | undefined;
  relationship: string | undefined;
  description: string | undefined;
}

/**
 * Fixes what Ghostscript 10.0 gets wrong in its PDF/A output, through MuPDF's object model:
 * - Info dates end in "Z00'00'", which PDFBox Preflight cannot read (its check 7.2 fails): "+00'00'".
 * - Type 3 fonts keep a BaseEncoding that Preflight cannot read (type3.ts).
 * - At level 1, reals beyond PDF/A-1's ±32767 in content streams (number-limits.ts).
 * - PDF/A-3 attachments lose what PDF/A-3 requires of them (ISO 19005-3 6.8): a UF name, an
 *   AFRelationship, a MIME type on the embedded file, and a place in the catalog's AF array.
 */
export async function finishPdfA(
  ghostscriptOutput: string,
  target: string,
  level: PdfALevel,
  prepared: string,
): Promise<void> {
  const facts =
    level === "3" ? await withPdf(prepared, attachmentFacts) : new Map<string, AttachmentFacts[]>();
  const bytes = await withPdf(ghostscriptOutput, (doc) => {
    fixInfoDates(doc);
    spellOutType3Encodings(doc);
    if (level === "1") fitNumbersToPdfA1(doc);
    if (level === "3") describeAttachments(doc, facts);
    return doc.saveToBuffer("").asUint8Array();
  });
  await writeFile(target, bytes);
}

function fixInfoDates(doc: PdfDocument): void {
  const info = field(doc.getTrailer(), "Info");
  if (!info.isDictionary()) return;
  for (const key of ["CreationDate", "ModDate"]) {
    const value = stringOf(info.get(key));
    if (value !== undefined && fixGhostscriptDate(value) !== value) {
      info.put(key, doc.newString(fixGhostscriptDate(value)));
    }
  }
}

/** One entry of the EmbeddedFiles name tree, where it sits (so it can be replaced in place). */
interface TreeEntry {
  name: string;
  spec: PdfObject;
  /** The Names array holding the entry, and the index of its file specification in it. */
  names: PdfObject;
  index: number;
}

/**
 * Every entry of the EmbeddedFiles name tree in tree order, duplicates included. MuPDF's
 * getEmbeddedFiles() returns an object keyed by name, so files that share a name (18 copies of
 * "Press Quality.joboptions" in govdocs_error_set_2_064034.pdf) collapse into one there.
 */
export function embeddedFileEntries(doc: PdfDocument): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const seen = new Set<number>();
  const walk = (node: PdfObject, depth: number): void => {
    if (!node.isDictionary() || depth > 32) return;
    if (node.isIndirect()) {
      if (seen.has(node.asIndirect())) return;
      seen.add(node.asIndirect());
    }
    const names = node.get("Names");
    if (names.isArray()) {
      for (let index = 0; index + 1 < names.length; index += 2) {
        const spec = names.get(index + 1);
        if (!spec.isDictionary()) continue;
        const key = names.get(index);
        const name = key.isString()
          ? key.asString()
          : (stringOf(field(spec, "UF")) ?? stringOf(field(spec, "F")) ?? "");
        entries.push({ name, spec, names, index: index + 1 });
      }
    }
    const kids = node.get("Kids");
    if (kids.isArray()) for (let index = 0; index < kids.length; index += 1) walk(kids.get(index), depth + 1);
  };
  walk(field(doc.getTrailer(), "Root", "Names", "EmbeddedFiles"), 0);
  return entries;
}

/** What each attachment of the prepared input says about itself, by name, in tree order. */
function attachmentFacts(doc: PdfDocument): Map<string, AttachmentFacts[]> {
  const facts = new Map<string, AttachmentFacts[]>();
  for (const { name, spec } of embeddedFileEntries(doc)) {
    const list = facts.get(name) ?? [];
    list.push({
      mimeType: nameOf(field(spec, "EF", "F", "Subtype")),
      relationship: nameOf(field(spec, "AFRelationship")),
      description: stringOf(field(spec, "Desc")),
    });
    facts.set(name, list);
  }
  return facts;
}

/**
 * Gives every attachment of the output what PDF/A-3 requires. Output entries are matched with the
 * input's by name and, among files sharing a name, by their order in the tree; each output entry is
 * edited where it sits in the tree, so duplicates are all described and all listed in AF.
 */
function describeAttachments(doc: PdfDocument, facts: Map<string, AttachmentFacts[]>): void {
  const entries = embeddedFileEntries(doc);
  if (entries.length === 0) return;
  const used = new Map<string, number>();
  const associated = doc.newArray();
  const listed = new Set<number>();
  for (const entry of entries) {
    const { name } = entry;
    const nth = used.get(name) ?? 0;
    used.set(name, nth + 1);
    const known = facts.get(name)?.[nth];
    // AF arrays can only point at indirect file specifications; Ghostscript writes them inline.
    let spec = entry.spec;
    if (!spec.isIndirect()) {
      spec = doc.addObject(spec);
      entry.names.put(entry.index, spec);
    }
    if (listed.has(spec.asIndirect())) continue;
    if (field(spec, "F").isNull()) spec.put("F", doc.newString(name));
    if (field(spec, "UF").isNull()) spec.put("UF", doc.newString(name));
    if (field(spec, "Type").isNull()) spec.put("Type", doc.newName("Filespec"));
    if (nameOf(field(spec, "AFRelationship")) === undefined) {
      spec.put("AFRelationship", doc.newName(known?.relationship ?? "Unspecified"));
    }
    if (known?.description !== undefined && field(spec, "Desc").isNull()) {
      spec.put("Desc", doc.newString(known.description));
    }
    const stream = field(spec, "EF", "F");
    if (stream.isStream() && nameOf(stream.get("Subtype")) === undefined) {
      stream.put("Subtype", doc.newName(known?.mimeType ?? mimeTypeOf(name)));
    }
    associated.push(spec);
    listed.add(spec.asIndirect());
  }
  const catalog = field(doc.getTrailer(), "Root");
  const existing = field(catalog, "AF");
  if (existing.isArray()) {
    for (let index = 0; index < existing.length; index += 1) {
      const item = existing.get(index);
      if (!item.isIndirect() || !listed.has(item.asIndirect())) associated.push(item);
    }
  }
  catalog.put("AF", associated);
}

const mimeTypes: Record<string, string> = {
  ".pdf": "application/pdf",
  ".xml": "application/xml",
  ".json": "application/json",
  ".txt": "text/plain",
  ".csv": "text/csv",
  ".html": "text/html",
  ".htm": "text/html",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".zip": "application/zip",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

function mimeTypeOf(fileName: string): string {
  return mimeTypes[extname(fileName).toLowerCase()] ?? "application/octet-stream";
}
