// What a reader of a converted document sees as text: a Word paragraph's runs joined without a separator
// (a word set in two fonts, "x" + subscript "1", is one word), paragraphs and slides' text bodies on lines
// of their own, tabs and breaks as white space. Joining every <w:t> with a space would split such words.
import { spawnSync } from "node:child_process";
import { readManifest } from "@octavo/testing";
import { corpusPath, part, pdftotext } from "./helpers.js";

const entities: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" };

function decode(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return entities[name] ?? whole;
  });
}

/** The text of each paragraph (`w:p` or `a:p`), runs joined as an editor shows them. */
export function paragraphTexts(xml: string, prefix: "w" | "a"): string[] {
  const token = new RegExp(
    `<${prefix}:t(?:\\s[^>]*)?>([^<]*)</${prefix}:t>|<${prefix}:(?:tab|br|cr)\\b[^>]*/>|</${prefix}:p>`,
    "g",
  );
  const paragraphs: string[] = [];
  let current = "";
  for (const match of xml.matchAll(token)) {
    if (match[1] !== undefined) current += decode(match[1]);
    else if (match[0].startsWith("</")) {
      paragraphs.push(current);
      current = "";
    } else current += " ";
  }
  if (current !== "") paragraphs.push(current);
  return paragraphs;
}

/**
 * Word paragraphs that are not flowing text: positioned frames (w:framePr) and paragraphs inside text
 * boxes (w:txbxContent, wps:txbx). Returns those and all paragraphs.
 */
export function docxFlow(xml: string): { paragraphs: number; framed: number } {
  const paragraphs = [...xml.matchAll(/<w:p[ >]/g)].length;
  const framed = [...xml.matchAll(/<w:framePr\b/g)].length;
  const boxed = [...xml.matchAll(/<w:txbxContent\b[\s\S]*?<\/w:txbxContent>/g)].reduce(
    (sum, box) => sum + [...box[0].matchAll(/<w:p[ >]/g)].length,
    0,
  );
  return { paragraphs, framed: framed + boxed + [...xml.matchAll(/<wps:txbx\b/g)].length };
}

/** The slides of a .pptx in order, as XML. */
export function slideXmls(zip: Record<string, Uint8Array>): string[] {
  const number = (name: string) => Number(/slide(\d+)\.xml$/.exec(name)?.[1]);
  return Object.keys(zip)
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => number(a) - number(b))
    .map((name) => part(zip, name));
}

/** Shapes on a slide that carry text but are not text boxes (placeholders, autoshapes, tables). */
export function textShapesOutsideTextBoxes(slide: string): number {
  const shapes = [...slide.matchAll(/<p:sp>[\s\S]*?<\/p:sp>/g)].map((shape) => shape[0]);
  const stray = shapes.filter((shape) => /<a:t[ >]/.test(shape) && !/<p:cNvSpPr txBox="1"\/>/.test(shape));
  const frames = [...slide.matchAll(/<p:graphicFrame>[\s\S]*?<\/p:graphicFrame>/g)].filter((frame) =>
    /<a:t[ >]/.test(frame[0]),
  );
  return stray.length + frames.length;
}

/** Inputs the issue calls born-digital, as the bench selects them (bench/pdf-office/corpus.mjs). */
export interface BornDigital {
  file: string;
  pages: number;
  /** pdftotext -layout of the file: the reference text. */
  reference: string;
}

const scanNotes = /image-only|needs OCR|sandwich|\bOCRed\b/i;

/**
 * Every PDF of general/ and tables/ except scans (by their MANIFEST notes), encrypted files (every
 * operation but unlock answers password_required, as the spec says, even when only an owner password
 * is set), and files in which pdftotext finds no word (nothing to recall).
 */
export function bornDigitalCorpus(): { files: BornDigital[]; skipped: string[] } {
  const files: BornDigital[] = [];
  const skipped: string[] = [];
  for (const entry of readManifest()) {
    if (!/^(general|tables)\/[^/]+\.pdf$/.test(entry.path)) continue;
    if (["encrypted", "broken", "scanned"].includes(entry.category) || scanNotes.test(entry.notes)) {
      skipped.push(`${entry.path} (scan)`);
      continue;
    }
    if (spawnSync("qpdf", ["--is-encrypted", corpusPath(entry.path)]).status === 0) {
      skipped.push(`${entry.path} (encrypted)`);
      continue;
    }
    const reference = pdftotext(corpusPath(entry.path));
    if (!/[\p{L}\p{N}]/u.test(reference)) {
      skipped.push(`${entry.path} (no words)`);
      continue;
    }
    files.push({ file: entry.path, pages: pageCount(corpusPath(entry.path)), reference });
  }
  return { files, skipped };
}

function pageCount(path: string): number {
  const info = spawnSync("pdfinfo", [path], { encoding: "utf8" }).stdout;
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
}
