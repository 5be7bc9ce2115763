import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stampPage } from "@octavo/edit/stamp-page";
import { embedFonts, hexGlyphs, type ShapedText, StampFonts } from "@octavo/edit/stamp-text";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  JobFailure,
  openSource,
  parsePageRanges,
  pdfContentType,
  pdfNameLike,
  reportProgress,
  runOperation,
  selectPages,
} from "@octavo/engines";
import { loadMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";
import { type Box, matchBoxes, pageText } from "./page-text.js";
import { compileRules, findMatches, type Rule, type RuleOptions } from "./rules.js";
import { sanitizeDocument } from "./sanitize.js";

export interface RedactOptions extends RuleOptions {
  /** Rectangles to clear, [x, y, width, height] in points from the top-left of the page as displayed. */
  areas?: { page: number; rect: [number, number, number, number] }[];
  /** "1-3,5": where the rules apply; areas name their own pages. */
  pages?: string;
  /** Also remove metadata, attachments, JavaScript and outline entries that hold a match (default true). */
  sanitize?: boolean;
  /** "#RRGGBB", the colour of the boxes left where content was removed (default black). */
  fill?: string;
  /** Text written in each box ("REDACTED"), upright as the page is displayed. */
  label?: string;
}

/**
 * What was removed where: per page, the matches of each rule (named as its option: "text[0]",
 * "patterns[1]", "email") and the areas; never the text itself. The job shows it as its `redaction`.
 */
export interface RedactionReport {
  pages: { page: number; matches: Record<string, number>; areas: number }[];
  total: number;
}

export interface RedactResult extends EngineResult {
  report: RedactionReport;
}

/**
 * Removes what the rules match, and the areas, from the pages: the glyphs under each box from the content
 * streams (and the Form XObjects they draw), the image pixels under it, vector art it covers, and the links and
 * annotations it touches; a box of the fill colour is left in its place. The document is then written whole
 * (no earlier revision, no unreferenced object survives), read back, and refused if any rule still matches.
 */
export function redact(
  input: EngineInput,
  options: RedactOptions,
  ctx: EngineContext,
): Promise<RedactResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const rules = compileRules(options);
    if (rules.length === 0 && (options.areas ?? []).length === 0) {
      throw new JobFailure(
        "invalid_input",
        "Nothing to redact: give text, patterns, presets or areas in options.",
      );
    }
    const ranges = options.pages === undefined ? undefined : parsePageRanges(options.pages, "pages");
    const source = await openSource(input, scratchDir, ctx.signal);
    const pages = selectPages(ranges, source.pages, name);
    const mupdf = await loadMupdf();
    const doc = new mupdf.PDFDocument(await readFile(source.path));
    let report: RedactionReport;
    let edited: Uint8Array;
    try {
      report = redactPages(mupdf, doc, { rules, pages, options, name }, (fraction) =>
        reportProgress(ctx, 0.1 + fraction * 0.7),
      );
      if (options.sanitize ?? true) sanitizeDocument(doc, rules);
      edited = doc.saveToBuffer("").asUint8Array().slice();
    } finally {
      doc.destroy();
    }
    const output = join(await freshDir(ctx.workDir, "redact"), pdfNameLike(input.name));
    await writeFile(output, await rewrittenWhole(mupdf, edited));
    await refuseLeftovers(mupdf, output, rules, pages, name);
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: "mupdf",
      warnings: source.warnings,
      report,
    };
  });
}

interface Job {
  rules: Rule[];
  pages: number[];
  options: RedactOptions;
  name: string;
}

function redactPages(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  job: Job,
  progress: (fraction: number) => void,
): RedactionReport {
  const selected = new Set(job.pages);
  const areaPages = new Set((job.options.areas ?? []).map((area) => area.page));
  const count = doc.countPages();
  for (const page of areaPages) {
    if (!Number.isInteger(page) || page < 1 || page > count) {
      throw new JobFailure(
        "invalid_input",
        `options.areas names page ${page}, but ${job.name} has ${count} pages.`,
      );
    }
  }
  const fill = colourOf(job.options.fill ?? "#000000");
  const label = job.options.label ? prepareLabel(mupdf, doc, job.options.label) : undefined;
  const report: RedactionReport = { pages: [], total: 0 };
  for (let index = 0; index < count; index += 1) {
    const number = index + 1;
    if (!selected.has(number) && !areaPages.has(number)) continue;
    const page = doc.loadPage(index);
    try {
      const matches: Record<string, number> = {};
      const boxes: Box[] = [];
      if (selected.has(number) && job.rules.length > 0) {
        const text = pageText(page);
        refuseUnreadablePage(page, text.text, number, job.name);
        for (const rule of job.rules) {
          for (const match of findMatches(text.text, rule)) {
            matches[match.rule] = (matches[match.rule] ?? 0) + 1;
            boxes.push(...matchBoxes(text, match.start, match.end));
          }
        }
      }
      const areas = (job.options.areas ?? []).filter((area) => area.page === number);
      boxes.push(...areas.map((area) => displayedBox(page, area.rect)));
      if (boxes.length === 0) continue;
      removeTouched(page, boxes);
      for (const box of boxes) page.createAnnotation("Redact").setRect(box);
      // MuPDF's own boxes are black only: ours are drawn after, in the fill colour.
      page.applyRedactions(
        false,
        mupdf.PDFPage.REDACT_IMAGE_PIXELS,
        mupdf.PDFPage.REDACT_LINE_ART_REMOVE_IF_COVERED,
        mupdf.PDFPage.REDACT_TEXT_REMOVE,
      );
      fillBoxes(mupdf, doc, page, boxes, fill, label);
      const found = Object.values(matches).reduce((sum, value) => sum + value, 0);
      report.pages.push({ page: number, matches, areas: areas.length });
      report.total += found + areas.length;
    } finally {
      page.destroy();
    }
    progress((index + 1) / count);
  }
  return report;
}

/** A page with images and no text may hold the words as pixels, which only OCR can find. */
function refuseUnreadablePage(page: Mupdf.PDFPage, text: string, number: number, name: string): void {
  if (text.trim() !== "") return;
  const stext = page.toStructuredText("preserve-images");
  let images = 0;
  try {
    stext.walk({
      onImageBlock: () => {
        images += 1;
      },
    });
  } finally {
    stext.destroy();
  }
  if (images > 0) {
    throw new JobFailure(
      "conversion_failed",
      `Page ${number} of ${name} is an image without a text layer, so the text to redact cannot be found on it; OCR it first (a pipeline of ocr then redact), or redact that page by areas.`,
    );
  }
}

/** [x, y, width, height] from the displayed page's top-left to MuPDF's page space. */
function displayedBox(page: Mupdf.PDFPage, rect: [number, number, number, number]): Box {
  const [x0, y0] = page.getBounds();
  const [x, y, width, height] = rect;
  return [x0 + x, y0 + y, x0 + x + width, y0 + y + height];
}

function intersects(a: readonly number[], b: Box): boolean {
  const [ax0 = 0, ay0 = 0, ax1 = 0, ay1 = 0] = a;
  return ax0 < b[2] && b[0] < ax1 && ay0 < b[3] && b[1] < ay1;
}

/** Links, widgets and annotations a box touches go with what is under it. */
function removeTouched(page: Mupdf.PDFPage, boxes: Box[]): void {
  for (const link of page.getLinks()) {
    if (boxes.some((box) => intersects(link.getBounds(), box))) page.deleteLink(link);
  }
  for (const annotation of [...page.getAnnotations(), ...page.getWidgets()]) {
    if (boxes.some((box) => intersects(annotation.getBounds(), box))) page.deleteAnnotation(annotation);
  }
}

/** The label's glyphs, shaped once, and its fonts, embedded once for every page. */
interface Label {
  text: ShapedText;
  fonts: Map<number, Mupdf.PDFObject>;
}

function prepareLabel(mupdf: MupdfModule, doc: Mupdf.PDFDocument, text: string): Label {
  const fonts = new StampFonts(mupdf);
  try {
    const [shaped] = fonts.shape([text]);
    if (shaped === undefined) throw new Error("no shaped label");
    return { text: shaped, fonts: embedFonts(mupdf, doc, fonts, [shaped]) };
  } finally {
    fonts.destroy();
  }
}

/**
 * Draws the boxes over the page in the fill colour, and the label in each, upright as displayed, in white on a
 * dark fill and black on a light one; the page's own content is wrapped in q … Q.
 */
function fillBoxes(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
  boxes: Box[],
  fill: [number, number, number],
  label: Label | undefined,
): void {
  const toPage = mupdf.Matrix.invert(page.getTransform());
  const rects = boxes.map((box) => {
    const [x0, y0, x1, y1] = mupdf.Rect.transform(box, toPage);
    return `${x0.toFixed(2)} ${y0.toFixed(2)} ${(x1 - x0).toFixed(2)} ${(y1 - y0).toFixed(2)} re`;
  });
  const additions = {
    fonts: label?.fonts ?? new Map<number, Mupdf.PDFObject>(),
    extGState: undefined,
    saveStream: doc.addStream("q\n", doc.newDictionary()),
  };
  stampPage(doc, page.getObject(), additions, (names) => {
    const parts = [`q ${fill.join(" ")} rg`, ...rects, "f Q"];
    if (label !== undefined) parts.push(...labels(mupdf, label, names.fonts, boxes, toPage, fill));
    return `${parts.join("\n")}\n`;
  });
}

function labels(
  mupdf: MupdfModule,
  label: Label,
  fontNames: Map<number, string>,
  boxes: Box[],
  toPage: Mupdf.Matrix,
  [red, green, blue]: [number, number, number],
): string[] {
  const ink = 0.2126 * red + 0.7152 * green + 0.0722 * blue < 0.5 ? "1 g" : "0 g";
  const { advance, bottom, top } = label.text.box;
  const middle = (top + bottom) / 2;
  return boxes.flatMap(([x0, y0, x1, y1]) => {
    // A tall box holds a word set upright on the page (turned text): the label runs up it, as the word does.
    const upward = y1 - y0 > (x1 - x0) * 1.5;
    const [across, along] = upward ? [x1 - x0, y1 - y0] : [y1 - y0, x1 - x0];
    const size = Math.min(across * 0.75, (along * 0.9) / Math.max(advance, 0.001));
    if (size < 2) return [];
    const [cx, cy] = [(x0 + x1) / 2, (y0 + y1) / 2];
    // Glyph space (y up) to the displayed page (y down), then to the page's own space.
    const glyphs: Mupdf.Matrix = upward
      ? [0, -size, -size, 0, cx + middle * size, cy + (advance * size) / 2]
      : [size, 0, 0, -size, cx - (advance * size) / 2, cy + middle * size];
    const matrix = mupdf.Matrix.concat(glyphs, toPage).map((value) => value.toFixed(3));
    const runs = label.text.runs.map((run) => `/${fontNames.get(run.font)} 1 Tf ${hexGlyphs(run.glyphs)} Tj`);
    return [`BT ${ink} ${matrix.join(" ")} Tm`, ...runs, "ET"];
  });
}

function colourOf(hex: string): [number, number, number] {
  const value = /^#([0-9a-f]{6})$/i.exec(hex)?.[1];
  if (value === undefined)
    throw new JobFailure("invalid_input", `options.fill is "${hex}"; give a colour as #RRGGBB.`);
  return [0, 2, 4].map((at) => Number.parseInt(value.slice(at, at + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
}

/**
 * The edited document written anew in a fresh instance: unreferenced objects (the content streams the
 * redaction replaced) are dropped and nothing of an earlier revision stays. MuPDF's garbage collection is
 * not safe on a document edited in the same session, hence the second open.
 */
async function rewrittenWhole(mupdf: MupdfModule, edited: Uint8Array): Promise<Uint8Array> {
  const doc = new mupdf.PDFDocument(edited);
  try {
    return doc.saveToBuffer("garbage=compact,compress").asUint8Array().slice();
  } finally {
    doc.destroy();
  }
}

/** Reads the output back: a rule that still matches a page's text means the redaction did not hold there. */
async function refuseLeftovers(
  mupdf: MupdfModule,
  output: string,
  rules: Rule[],
  pages: number[],
  name: string,
): Promise<void> {
  if (rules.length === 0) return;
  const doc = new mupdf.PDFDocument(await readFile(output));
  try {
    for (const number of pages) {
      const index = number - 1;
      const page = doc.loadPage(index);
      try {
        const text = pageText(page).text;
        if (rules.some((rule) => findMatches(text, rule).length > 0)) {
          throw new JobFailure(
            "conversion_failed",
            `Text to redact was still found on page ${index + 1} of ${name} after redaction, so the file was not delivered.`,
          );
        }
      } finally {
        page.destroy();
      }
    }
  } finally {
    doc.destroy();
  }
}
