import { writeFile } from "node:fs/promises";
import {
  forEachDictionary,
  itemsOf,
  nameOf,
  numberOf,
  type PdfDocument,
  type PdfObject,
  withPdf,
} from "./mupdf.js";

/** What identifies a font of the input whose ToUnicode map may be carried over. */
interface SourceFont {
  name: string;
  composite: boolean;
  encoding: string | undefined;
  firstChar: number | undefined;
  widths: number[];
  toUnicode: Buffer;
}

const simpleSubtypes = new Set(["Type1", "MMType1", "TrueType"]);

function strippedName(font: PdfObject): string | undefined {
  return nameOf(font.get("BaseFont"))?.replace(/^[A-Z]{6}\+/, "");
}

function widthsOf(font: PdfObject): number[] {
  return itemsOf(font.get("Widths")).map((width) => numberOf(width) ?? Number.NaN);
}

function sourceFonts(doc: PdfDocument): SourceFont[] {
  const fonts: SourceFont[] = [];
  forEachDictionary(doc, (dict) => {
    if (nameOf(dict.get("Type")) !== "Font") return;
    const subtype = nameOf(dict.get("Subtype")) ?? "";
    const name = strippedName(dict);
    const toUnicode = dict.get("ToUnicode");
    if (name === undefined || !toUnicode.isStream()) return;
    const composite = subtype === "Type0";
    if (!composite && !simpleSubtypes.has(subtype)) return;
    fonts.push({
      name,
      composite,
      encoding: nameOf(dict.get("Encoding")),
      firstChar: numberOf(dict.get("FirstChar")),
      widths: widthsOf(dict),
      toUnicode: Buffer.from(toUnicode.readStream().asUint8Array()),
    });
  });
  return fonts;
}

/** The input font whose codes the output font still uses, or undefined when none or several fit. */
function match(font: PdfObject, sources: SourceFont[]): SourceFont | undefined {
  const name = strippedName(font);
  const subtype = nameOf(font.get("Subtype")) ?? "";
  let candidates: SourceFont[];
  if (subtype === "Type0") {
    // With Identity-H/V the codes are CIDs, which pdfwrite keeps; the input's map still reads them.
    const encoding = nameOf(font.get("Encoding"));
    if (encoding !== "Identity-H" && encoding !== "Identity-V") return undefined;
    candidates = sources.filter(
      (source) => source.composite && source.name === name && source.encoding === encoding,
    );
    // Subsets of one font map the same CIDs to the same text: the largest map covers the most.
    return candidates.sort((a, b) => b.toUnicode.length - a.toUnicode.length)[0];
  }
  if (!simpleSubtypes.has(subtype)) return undefined;
  const firstChar = numberOf(font.get("FirstChar"));
  const widths = widthsOf(font);
  if (firstChar === undefined || widths.length === 0) return undefined;
  // A simple font keeps its codes when every width pdfwrite wrote agrees with the input's at that code.
  candidates = sources.filter((source) => {
    if (source.composite || source.name !== name || source.firstChar === undefined) return false;
    return widths.every((width, index) => {
      const theirs = source.widths[firstChar + index - (source.firstChar ?? 0)];
      return theirs !== undefined && Math.abs(theirs - width) <= 1;
    });
  });
  const distinct = new Set(candidates.map((candidate) => candidate.toUnicode.toString("latin1")));
  return distinct.size === 1 ? candidates[0] : undefined;
}

/**
 * Ghostscript 10.0's new interpreter rewrites the ToUnicode maps of some fonts wrongly (Arabic in CID
 * TrueType fonts, CJK in LibreOffice's Type 1 subsets) while keeping their codes, so the pages look right
 * but extract as garbage. This gives each output font whose codes provably match an input font the input's
 * map again. Writes `target` and returns the number of fonts changed (0: nothing written).
 */
export async function restoreToUnicode(output: string, target: string, source: string): Promise<number> {
  const sources = await withPdf(source, sourceFonts);
  if (sources.length === 0) return 0;
  const { bytes, changed } = await withPdf(output, (doc) => {
    let changed = 0;
    const fonts: PdfObject[] = [];
    forEachDictionary(doc, (dict) => {
      if (nameOf(dict.get("Type")) === "Font") fonts.push(dict);
    });
    for (const font of fonts) {
      const found = match(font, sources);
      if (found === undefined) continue;
      const current = font.get("ToUnicode");
      if (current.isStream() && Buffer.from(current.readStream().asUint8Array()).equals(found.toUnicode))
        continue;
      font.put("ToUnicode", doc.addStream(found.toUnicode, doc.newDictionary()));
      changed += 1;
    }
    return { bytes: changed > 0 ? doc.saveToBuffer("").asUint8Array() : undefined, changed };
  });
  if (bytes !== undefined) await writeFile(target, bytes);
  return changed;
}
