import { deflateSync } from "node:zlib";
import { type NumberToken, numberTokens, rewriteNumbers } from "./content-numbers.js";
import { forEachDictionary, nameOf, type PdfDocument, type PdfObject, streamBytes } from "./mupdf.js";

/**
 * PDF/A-1 keeps PDF 1.4's implementation limits (ISO 19005-1 6.1.12; PDFBox Preflight 1.0.6): a real
 * lies within ±32767, an integer within ±2^31−1. Ghostscript's pdfwrite breaks the real limit where it
 * scales Type 3 glyph programs by 100 (pdfjs_issue19971_jpn.pdf) and where an input already drew far
 * outside its box (tracemonkey's patterns fill ±8388608.0).
 */
const maxReal = 32767;
const maxInteger = 2 ** 31 - 1;

function isReal(token: NumberToken): boolean {
  return token.text.includes(".");
}

function breaksLimit(token: NumberToken): boolean {
  const value = Math.abs(Number(token.text));
  return isReal(token) ? value > maxReal : value > maxInteger;
}

/**
 * A real beyond ±32767 written as the nearest integer: the same number to within 0.5, which is less than
 * 1/65534 of the value itself, so nothing drawn moves by a visible amount. Integers have room up to 2^31.
 */
function asInteger(token: NumberToken): string | undefined {
  if (!isReal(token) || !breaksLimit(token)) return undefined;
  const rounded = Math.round(Number(token.text));
  return Math.abs(rounded) <= maxInteger ? String(rounded) : undefined;
}

/**
 * The streams holding content: page contents, form XObjects, tiling patterns and Type 3 glyph programs.
 * Visited as references, since only a reference to a stream can be read or rewritten.
 */
export function contentStreams(doc: PdfDocument): PdfObject[] {
  const streams = new Map<number, PdfObject>();
  const add = (item: PdfObject) => {
    if (item.isIndirect() && item.isStream()) streams.set(item.asIndirect(), item);
  };
  forEachDictionary(doc, (dict, key) => {
    if (key === "" && dict.isStream()) {
      if (nameOf(dict.get("Subtype")) === "Form" || dict.get("PatternType").isNumber()) add(dict);
    }
    if (nameOf(dict.get("Type")) === "Page") {
      const contents = dict.get("Contents");
      if (contents.isArray())
        for (let index = 0; index < contents.length; index += 1) add(contents.get(index));
      else add(contents);
    }
    const charProcs = nameOf(dict.get("Subtype")) === "Type3" ? dict.get("CharProcs") : undefined;
    if (charProcs?.isDictionary())
      charProcs.forEach((glyph) => {
        add(glyph);
      });
  });
  return [...streams.values()];
}

/** Rewrites out-of-range reals as integers in every content stream; returns how many streams changed. */
export function fitNumbersToPdfA1(doc: PdfDocument): number {
  let changed = 0;
  for (const stream of contentStreams(doc)) {
    const rewritten = rewriteNumbers(streamBytes(stream), asInteger);
    if (rewritten === undefined) continue;
    writeDeflated(doc, stream, rewritten);
    changed += 1;
  }
  return changed;
}

function writeDeflated(doc: PdfDocument, stream: PdfObject, bytes: Uint8Array): void {
  stream.writeRawStream(deflateSync(bytes));
  stream.put("Filter", doc.newName("FlateDecode"));
  stream.delete("DecodeParms");
}

/** How many content streams hold a number beyond PDF/A-1's limits. */
export function streamsBeyondPdfA1Limits(doc: PdfDocument): number {
  let count = 0;
  for (const stream of contentStreams(doc)) {
    for (const token of numberTokens(streamBytes(stream))) {
      if (breaksLimit(token)) {
        count += 1;
        break;
      }
    }
  }
  return count;
}
