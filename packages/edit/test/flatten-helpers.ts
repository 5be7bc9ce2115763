import { withPdf } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { type Rendering, renderPage, tool } from "./helpers.js";

/** [x0, y0, x1, y1] in points from the page's top left corner (MuPDF's and pdftotext's bounds). */
export type Box = [number, number, number, number];

/** Both renderers draw at this resolution, so their drawings compare pixel for pixel. */
const dpi = 96;

/** poppler's drawing of one page (annotations shown as poppler draws them). */
export function drawWithPoppler(path: string, page: number): Promise<Rendering> {
  return renderPage(path, page, dpi);
}

/** MuPDF's drawing of one page, annotations and fields included (as MuPDF shows them). */
export async function drawWithMupdf(path: string, page: number): Promise<Rendering> {
  const mupdf = await loadMupdf();
  return withPdf(path, (doc) => {
    const scale = dpi / 72;
    const pixmap = doc
      .loadPage(page - 1)
      .toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      return {
        width: pixmap.getWidth(),
        height: pixmap.getHeight(),
        scale,
        pixels: new Uint8Array(pixmap.getPixels()),
      };
    } finally {
      pixmap.destroy();
    }
  });
}

/** A pixel with a channel below this is ink: yellow highlights count, light anti-aliased edges do not. */
const inkBelow = 200;

/** The pixels of `box` (points) that carry ink, as "x,y" keys. */
function inkIn(image: Rendering, box: Box): Set<string> {
  const ink = new Set<string>();
  const [x0, y0, x1, y1] = box.map((value) => Math.round(value * image.scale));
  for (let y = Math.max(0, y0 ?? 0); y < Math.min(image.height, y1 ?? 0); y += 1) {
    for (let x = Math.max(0, x0 ?? 0); x < Math.min(image.width, x1 ?? 0); x += 1) {
      const at = (y * image.width + x) * 3;
      const darkest = Math.min(...image.pixels.subarray(at, at + 3));
      if (darkest < inkBelow) ink.add(`${x},${y}`);
    }
  }
  return ink;
}

/** Share of `ink` that has ink in `other` within one pixel (renderers place edges a pixel apart). */
function foundNear(ink: Set<string>, other: Set<string>): number {
  if (ink.size === 0) return 1;
  let found = 0;
  for (const key of ink) {
    const [x = 0, y = 0] = key.split(",").map(Number);
    let near = false;
    for (let dy = -1; dy <= 1 && !near; dy += 1) {
      for (let dx = -1; dx <= 1 && !near; dx += 1) near = other.has(`${x + dx},${y + dy}`);
    }
    if (near) found += 1;
  }
  return found / ink.size;
}

/**
 * How well the ink of `box` matches between two drawings of a page: the smaller of the two shares of
 * each side's ink found again in the other (1 = the same marks, 0 = nothing in common), and the ink
 * counts, so a test can also require that there is ink at all.
 */
export function inkMatch(
  before: Rendering,
  after: Rendering,
  box: Box,
): { match: number; before: number; after: number } {
  const inkBefore = inkIn(before, box);
  const inkAfter = inkIn(after, box);
  return {
    match: Math.min(foundNear(inkBefore, inkAfter), foundNear(inkAfter, inkBefore)),
    before: inkBefore.size,
    after: inkAfter.size,
  };
}

/** pdftotext's word boxes (points from the top left) on a page, by word. */
export async function wordBoxes(path: string, page: number): Promise<Map<string, Box[]>> {
  const result = await tool("pdftotext", ["-q", "-bbox", "-f", String(page), "-l", String(page), path, "-"]);
  const words = new Map<string, Box[]>();
  const pattern = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g;
  for (const match of result.stdout.matchAll(pattern)) {
    const [, x0, y0, x1, y1, text = ""] = match;
    const word = decodeEntities(text);
    words.set(word, [...(words.get(word) ?? []), [Number(x0), Number(y0), Number(x1), Number(y1)]]);
  }
  return words;
}

function decodeEntities(text: string): string {
  return text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&");
}

/** True when `inner`'s centre lies inside `outer`. */
export function centredIn(inner: Box, outer: Box): boolean {
  const x = (inner[0] + inner[2]) / 2;
  const y = (inner[1] + inner[3]) / 2;
  return x >= outer[0] && x <= outer[2] && y >= outer[1] && y <= outer[3];
}

/** What is left on each page: the /Subtype of every annotation, and whether the catalog has an AcroForm. */
export async function leftovers(path: string): Promise<{ subtypes: string[][]; acroForm: boolean }> {
  return withPdf(path, (doc) => {
    const subtypes: string[][] = [];
    for (let index = 0; index < doc.countPages(); index += 1) {
      const annotations = doc.findPage(index).get("Annots");
      const page: string[] = [];
      for (let item = 0; item < (annotations.isArray() ? annotations.length : 0); item += 1) {
        const subtype = annotations.get(item).get("Subtype");
        page.push(subtype.isName() ? subtype.asName() : "?");
      }
      subtypes.push(page);
    }
    return { subtypes, acroForm: doc.getTrailer().get("Root").get("AcroForm").isDictionary() };
  });
}

/** The bounds (points from the top left) of the widgets and annotations on a page, by field name or type. */
export async function annotationBoxes(path: string, page: number): Promise<Map<string, Box[]>> {
  return withPdf(path, (doc) => {
    const boxes = new Map<string, Box[]>();
    const loaded = doc.loadPage(page - 1);
    // An annotation without a usable rectangle (MuPDF gives it an infinite one) marks nothing.
    const add = (key: string, box: Box) => {
      const [x0, y0, x1, y1] = box;
      if (x0 < x1 && y0 < y1 && box.every((value) => Math.abs(value) < 1e6)) {
        boxes.set(key, [...(boxes.get(key) ?? []), box]);
      }
    };
    for (const widget of loaded.getWidgets()) add(widget.getName(), widget.getBounds());
    for (const annotation of loaded.getAnnotations()) add(annotation.getType(), annotation.getBounds());
    return boxes;
  });
}
