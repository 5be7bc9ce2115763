import type { Mupdf as mupdf } from "@octavo/mupdf";
import { isEmptyBox, roundBox, unionBoxes } from "./geometry.js";
import { type Glyph, isBlank, readGlyphs } from "./glyphs.js";
import { imageBlocks } from "./images.js";
import { glyphRuns, mergeSameBaseline, toTextLine } from "./lines.js";
import { buildParagraphs } from "./paragraphs.js";
import { minGutterPt, readingOrder } from "./reading-order.js";
import { ruleBoundedTables } from "./rule-bounded-tables.js";
import { ruledTables } from "./ruled-tables.js";
import { absorbScripts } from "./scripts.js";
import { streamTables } from "./stream-tables.js";
import type { Block, Box, ImageBlock, PageLayout, Table, TextLine } from "./types.js";

export interface AnalyzeOptions {
  /** Extract images as PNG blocks (default true). */
  images?: boolean;
  /**
   * Encode each image's pixels (default true). false gives image blocks with their boxes and pixel sizes
   * but empty data, for a writer that only marks where figures are: decoding and PNG-encoding is most of
   * an illustrated page's time.
   */
  imageData?: boolean;
  /** Look for ruled and borderless tables (default true). */
  tables?: boolean;
}

/** Gaps wider than this many ems inside a MuPDF line separate columns or cells. */
const lineSplitEm = 1.5;

type Item = { box: Box; line: TextLine } | { box: Box; block: Table | ImageBlock };

/** The size most characters on the page are set in. */
function bodySizeOf(glyphs: Glyph[]): number {
  const counts = new Map<number, number>();
  for (const g of glyphs) if (!isBlank(g)) counts.set(g.font.size, (counts.get(g.font.size) ?? 0) + 1);
  let best = 10;
  let bestCount = 0;
  for (const [size, count] of counts)
    if (count > bestCount) {
      best = size;
      bestCount = count;
    }
  return best;
}

function pageRotation(page: mupdf.Page): number {
  const pdfPage = page as Partial<mupdf.PDFPage>;
  try {
    const value = pdfPage.getObject?.().getInheritable("Rotate");
    return value?.isNumber() ? ((value.asNumber() % 360) + 360) % 360 : 0;
  } catch {
    return 0;
  }
}

export function analyzePage(page: mupdf.Page, index: number, options: AnalyzeOptions = {}): PageLayout {
  const [bx0, by0, bx1, by1] = page.getBounds();
  const { glyphs, images } = readGlyphs(page, options.images ?? true);
  const inked = glyphs.filter((g) => !isBlank(g));
  const bodySize = bodySizeOf(inked);
  let rest = glyphs;
  const tables: Table[] = [];
  if (options.tables ?? true) {
    const ruled = ruledTables(page, rest, bodySize);
    tables.push(...ruled.tables);
    const bounded = ruleBoundedTables(ruled.acrossRules, ruled.rest, bodySize);
    tables.push(...bounded.tables);
    const stream = streamTables(bounded.rest, bodySize, ruled.slants);
    tables.push(...stream.tables);
    rest = stream.rest;
  }
  const runs = absorbScripts(glyphRuns(rest, lineSplitEm).map((r) => r.glyphs));
  const lines = mergeSameBaseline(runs.map(toTextLine), 1).filter((l) => !isEmptyBox(l.box));
  // Rotated lines (margin stamps, vertical labels) would chain unrelated bands; they go last.
  const rotated = lines.filter((l) => l.rotation !== 0);
  const items: Item[] = [
    ...lines.filter((l) => l.rotation === 0).map((line) => ({ box: line.box, line })),
    ...tables.map((block) => ({ box: block.box, block })),
    ...imageBlocks(page, images, options.imageData ?? true).map((block) => ({ box: block.box, block })),
  ];
  const content = unionBoxes([...items.map((i) => i.box), ...rotated.map((l) => l.box)]);
  const frame = isEmptyBox(content) ? { x0: bx0, y0: by0, x1: bx1, y1: by1 } : content;
  const order = readingOrder(items, frame, Math.max(minGutterPt, bodySize));
  const blocks: Block[] = [];
  for (const leaf of order.leaves) {
    let pending: TextLine[] = [];
    const flush = () => {
      if (pending.length) blocks.push(...buildParagraphs(pending, leaf.frame, bodySize));
      pending = [];
    };
    for (const item of leaf.items) {
      if ("line" in item) pending.push(item.line);
      else {
        flush();
        blocks.push(item.block);
      }
    }
    flush();
  }
  for (const line of rotated) blocks.push(...buildParagraphs([line], line.box, bodySize));
  const empty = isEmptyBox(content);
  return {
    index,
    width: bx1 - bx0,
    height: by1 - by0,
    rotation: pageRotation(page),
    margins: {
      top: empty ? 0 : Math.max(0, content.y0 - by0),
      right: empty ? 0 : Math.max(0, bx1 - content.x1),
      bottom: empty ? 0 : Math.max(0, by1 - content.y1),
      left: empty ? 0 : Math.max(0, content.x0 - bx0),
    },
    columns: (order.columns.length ? order.columns : empty ? [] : [content]).map(roundBox),
    blocks,
    hasText: inked.length > 0,
  };
}
