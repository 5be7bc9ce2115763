import {
  badOutput,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  type PdfDocument,
} from "@octavo/engines";
import { bothForms, XmpPacket } from "@octavo/xmp";
import { editPdf } from "./edit-pdf.js";
import {
  type CurrentValues,
  currentValues,
  modificationDate,
  pairs,
  pdfaPart,
  type Target,
  type TextField,
  textFields,
} from "./metadata-fields.js";
import { readInfo, readPacket, writeInfo, writePacket } from "./metadata-places.js";
import { objectAt } from "./pdf-objects.js";
import { compactingSave } from "./save-checked.js";

export interface MetadataOptions {
  title?: string;
  author?: string;
  subject?: string;
  /** The creating application (Info /Creator, xmp:CreatorTool). */
  creator?: string;
  keywords?: string[];
  /** Remove all document metadata (Info and XMP) first, then write what is given. */
  remove: boolean;
}

/**
 * Writes the document metadata to the Info dictionary and the XMP packet alike (MuPDF's object model;
 * the packet through an XML parser, so properties and schemas it does not own stay as they were,
 * PDF/A identification included). Fields not given keep their current value, made the same in both
 * places; the modification date is now in both.
 */
export function metadata(
  input: EngineInput,
  options: MetadataOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return editPdf(input, ctx, "metadata", (_source, name) => {
    const now = bothForms(new Date());
    return {
      purpose: "edit its metadata",
      saveOptions: compactingSave,
      needsReadableContent: false,
      edit: (doc) => rewriteMetadata(doc, options, now, name),
      verify: (doc, written) => checkWritten(doc, written.target, name),
      warnings: (written) => written.warnings,
    };
  });
}

function rewriteMetadata(
  doc: PdfDocument,
  options: MetadataOptions,
  now: { pdf: string; xmp: string },
  name: string,
): { warnings: string[]; target: Target | undefined } {
  const info = readInfo(doc);
  const read = readPacket(doc);
  const warnings: string[] = [];
  if (read.packet?.get(pdfaPart) !== undefined && options.remove) {
    warnings.push(
      `${name} was a PDF/A file; removing its metadata removed its PDF/A identification too, so the result is no longer PDF/A. Convert it to PDF/A again if you need an archival file.`,
    );
  }
  if (read.unreadable !== undefined && !options.remove) {
    warnings.push(
      `The XMP metadata of ${name} could not be read (${read.unreadable}), so it was replaced by a new packet holding the document information.`,
    );
  }
  const current = options.remove
    ? { text: {}, created: { info: undefined, xmp: undefined } }
    : currentValues(info, read.packet);
  const target = targetOf(options, current, now);
  // The catalog changes first, the trailer after, each time through a fresh doc.getTrailer(): MuPDF
  // starts a new xref section (with a copy of the trailer) at the first change of an object, and a
  // change made through the trailer it replaced is lost (the Info kept or gone, depending on the file).
  if (options.remove && Object.keys(target.text).length === 0) {
    objectAt(doc.getTrailer(), "Root").delete("Metadata");
    doc.getTrailer().delete("Info");
    return { warnings, target: undefined };
  }
  const packet = options.remove || read.packet === undefined ? XmpPacket.empty() : read.packet;
  writePacket(doc, packet, target);
  writeInfo(doc, options.remove ? {} : info, target, options.remove);
  return { warnings, target };
}

function targetOf(options: MetadataOptions, current: CurrentValues, modified: Target["modified"]): Target {
  const given: Partial<Record<TextField, string | undefined>> = {
    title: options.title,
    author: options.author,
    subject: options.subject,
    creator: options.creator,
  };
  const keywords = options.keywords
    ?.map((keyword) => xmlSafe(keyword).trim())
    .filter((keyword) => keyword !== "");
  if (keywords !== undefined) given.keywords = keywords.join(", ");
  const text: Partial<Record<TextField, string>> = {};
  for (const field of textFields) {
    // A field given empty is cleared; one not given keeps its current value.
    const wanted = given[field];
    const value = wanted === undefined ? current.text[field] : xmlSafe(wanted);
    if (value !== undefined && !(wanted !== undefined && value === "")) text[field] = value;
  }
  return { text, keywordList: keywords, created: current.created, modified };
}

/** Characters XML 1.0 cannot carry (control characters, lone surrogates) are dropped from both places. */
function xmlSafe(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}

/** Reads the output back: each value written is there, the same in both places. */
function checkWritten(doc: PdfDocument, target: Target | undefined, name: string): void {
  const trailer = doc.getTrailer();
  if (target === undefined) {
    if (!objectAt(trailer, "Info").isNull() || !objectAt(trailer, "Root", "Metadata").isNull()) {
      throw badOutput(name, "metadata remained after removing it");
    }
    return;
  }
  const info = readInfo(doc);
  const { packet } = readPacket(doc);
  for (const field of textFields) {
    const value = target.text[field];
    if (value === undefined || value === "") continue;
    if (info[pairs[field].info] !== value || packet?.get(pairs[field].xmp) !== value) {
      throw badOutput(name, `its ${field} does not read back the same from Info and XMP`);
    }
  }
  if (info[modificationDate.info] !== target.modified.pdf)
    throw badOutput(name, "its modification date is not set");
}
