import { readFile } from "node:fs/promises";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import type { PdfDocument } from "./mupdf.js";

/** What a compressed file must keep of its input. */
export interface PdfFacts {
  pages: number;
  /** Page width × height in points, rounded, per page. */
  sizes: string[];
  /** Links per page. */
  links: number[];
  outlineItems: number;
  /** Characters (no white space) on the sampled pages, by character. */
  chars: Map<string, number>;
  charCount: number;
  /**
   * Bytes of image XObject streams as stored (their /Length). What the file weighs without them is what no
   * image setting can take away (compress.ts: the target-size ladder stops when that alone is over the target).
   */
  imageBytes: number;
}

/** Pages whose text is compared; larger files are sampled evenly. */
const textSamplePages = 60;
const maxOutlineItems = 50_000;

export async function readFacts(path: string, signal: AbortSignal | undefined): Promise<PdfFacts> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    return factsOf(doc, signal);
  } finally {
    doc.destroy();
  }
}

function factsOf(doc: PdfDocument, signal: AbortSignal | undefined): PdfFacts {
  const pages = doc.countPages();
  const sample = new Set(samplePages(pages));
  const sizes: string[] = [];
  const links: number[] = [];
  const chars = new Map<string, number>();
  let charCount = 0;
  for (let index = 0; index < pages; index += 1) {
    signal?.throwIfAborted();
    const page = doc.loadPage(index);
    try {
      const [x0, y0, x1, y1] = page.getBounds();
      sizes.push(`${Math.round(x1 - x0)}×${Math.round(y1 - y0)}`);
      links.push(countLinks(page));
      if (sample.has(index)) charCount += addChars(page, chars);
    } finally {
      page.destroy();
    }
  }
  const outlineItems = countOutline(doc);
  return { pages, sizes, links, outlineItems, chars, charCount, imageBytes: imageBytesOf(doc, signal) };
}

function imageBytesOf(doc: PdfDocument, signal: AbortSignal | undefined): number {
  let bytes = 0;
  const count = doc.countObjects();
  for (let num = 1; num < count; num += 1) {
    if (num % 1000 === 0) signal?.throwIfAborted();
    try {
      const object = doc.newIndirect(num);
      if (!object.isStream()) continue;
      const subtype = object.get("Subtype");
      if (!subtype.isName() || subtype.asName() !== "Image") continue;
      const length = object.get("Length");
      if (length.isNumber()) bytes += length.asNumber();
    } catch {
      // An object MuPDF cannot load weighs nothing here.
    }
  }
  return bytes;
}

function countLinks(page: Mupdf.PDFPage): number {
  try {
    return page.getLinks().length;
  } catch {
    return 0;
  }
}

function addChars(page: Mupdf.PDFPage, chars: Map<string, number>): number {
  let text: Mupdf.StructuredText | undefined;
  try {
    text = page.toStructuredText("");
    let count = 0;
    for (const char of text.asText().replace(/[\s\p{Cf}]+/gu, "")) {
      chars.set(char, (chars.get(char) ?? 0) + 1);
      count += 1;
    }
    return count;
  } catch {
    // A page whose content cannot be parsed has no readable text; that is what is measured.
    return 0;
  } finally {
    text?.destroy();
  }
}

function countOutline(doc: PdfDocument): number {
  let count = 0;
  const walk = (items: OutlineItem[] | undefined, depth: number): void => {
    for (const item of items ?? []) {
      if (count >= maxOutlineItems || depth > 64) return;
      count += 1;
      walk(item.down, depth + 1);
    }
  };
  try {
    walk(doc.loadOutline() ?? undefined, 0);
  } catch {
    // An unreadable outline counts as none.
  }
  return count;
}

function samplePages(pages: number): number[] {
  if (pages <= textSamplePages) return Array.from({ length: pages }, (_, index) => index);
  return Array.from({ length: textSamplePages }, (_, index) => Math.floor((index * pages) / textSamplePages));
}

/** Share of the input's characters (as a multiset) found in the output: 1 when no text was lost. */
export function textKept(input: PdfFacts, output: PdfFacts): number {
  if (input.charCount === 0) return 1;
  let kept = 0;
  for (const [char, count] of input.chars) kept += Math.min(count, output.chars.get(char) ?? 0);
  return kept / input.charCount;
}

/** Why an output does not keep what its input had, or undefined when it does. */
export function lossOf(input: PdfFacts, output: PdfFacts): string | undefined {
  if (output.pages !== input.pages) return `page count ${output.pages} instead of ${input.pages}`;
  const resized = input.sizes.findIndex((size, index) => output.sizes[index] !== size);
  if (resized >= 0)
    return `page ${resized + 1} changed size (${input.sizes[resized]} → ${output.sizes[resized]})`;
  const linkless = input.links.findIndex((count, index) => (output.links[index] ?? 0) < count);
  if (linkless >= 0) {
    return `page ${linkless + 1} lost links (${output.links[linkless]} of ${input.links[linkless]})`;
  }
  if (output.outlineItems < input.outlineItems) {
    return `bookmarks lost (${output.outlineItems} of ${input.outlineItems})`;
  }
  const kept = textKept(input, output);
  if (kept < minTextKept) return `text lost (${(kept * 100).toFixed(1)} % of the characters kept)`;
  return undefined;
}

export const minTextKept = 0.99;

type OutlineItem = NonNullable<ReturnType<PdfDocument["loadOutline"]>>[number];

/**
 * Channels of a rendered pixel may differ by this much and still count as gray: MuPDF's colour management
 * renders DeviceGray content of a Ghostscript gray rewrite as e.g. (242, 243, 242) where it is blended with
 * a soft mask (measured on pdfjs_issue19971_jpn: differences of at most 1; the colour input has up to 255).
 */
export const grayRenderTolerance = 2;

/** Renders sampled pages small and reports whether any pixel has colour (R, G, B differ by more than the tolerance). */
export async function hasColour(
  path: string,
  signal: AbortSignal | undefined,
  maxPages = 12,
): Promise<boolean> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    const pages = doc.countPages();
    const step = Math.max(1, Math.ceil(pages / maxPages));
    for (let index = 0; index < pages; index += step) {
      signal?.throwIfAborted();
      const page = doc.loadPage(index);
      const pixmap = page.toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false, true);
      try {
        const pixels = pixmap.getPixels();
        for (let at = 0; at + 2 < pixels.length; at += 3) {
          const red = pixels[at] ?? 0;
          const green = pixels[at + 1] ?? 0;
          const blue = pixels[at + 2] ?? 0;
          const spread = Math.max(red, green, blue) - Math.min(red, green, blue);
          if (spread > grayRenderTolerance) return true;
        }
      } finally {
        pixmap.destroy();
        page.destroy();
      }
    }
    return false;
  } finally {
    doc.destroy();
  }
}
