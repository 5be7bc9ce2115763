import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stampPage } from "@octavo/edit/stamp-page";
import { embedFonts, hexGlyphs, type ShapedText, StampFonts } from "@octavo/edit/stamp-text";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  forgetBorrowed,
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
import { ocr } from "@octavo/ocr";
import { type Box, overlaps } from "./box.js";
import { hiddenGlyphs } from "./hidden-text.js";
import { coveredImages, fillCoveredPixels } from "./image-fill.js";
import { inlineImagesAsXObjects } from "./inline-images.js";
import { asPicture, changedOutside, drawForCheck } from "./page-check.js";
import { type MatchBox, matchBoxes, type PageText, pageText } from "./page-text.js";
import { spellOutQuotes } from "./quote-operators.js";
import { compileRules, findMatches, type Rule, type RuleOptions } from "./rules.js";
import { sanitizeDocument } from "./sanitize.js";
import { addInvisibleText } from "./text-layer.js";

export interface RedactOptions extends RuleOptions {
  /** Rectangles to clear, [x, y, width, height] in points from the top-left of the page as displayed. */
  areas?: { page: number; rect: [number, number, number, number] }[];
  /** OCR the scans without a text layer first, so the rules find their words too (default false). */
  ocr?: boolean;
  /** Tesseract languages of that OCR (default ["eng"]). */
  languages?: string[];
  /** "1-3,5": where the rules apply; areas name their own pages. */
  pages?: string;
  /**
   * Also remove metadata, attachments, JavaScript, outline entries that hold a match, and hidden text
   * (default true).
   */
  sanitize?: boolean;
  /** "#RRGGBB", the colour of the boxes left where content was removed (default black). */
  fill?: string;
  /** Text written in each box ("REDACTED"), upright as the page is displayed. */
  label?: string;
}

/**
 * What was removed where: per page, the matches of each rule (named as its option: "text[0]",
 * "patterns[1]", "email"), the areas and the glyphs of hidden text; never the text itself. The job shows it
 * as its `redaction`.
 */
export interface RedactionReport {
  pages: { page: number; matches: Record<string, number>; areas: number; hiddenText?: number }[];
  total: number;
}

export interface RedactResult extends EngineResult {
  report: RedactionReport;
}

/**
 * Removes what the rules match, and the areas, from the pages: the glyphs under each box from the content
 * streams (and the Form XObjects they draw), the image pixels under it, vector art it covers, and the links and
 * annotations it touches; a box of the fill colour is left in its place. The document is then written whole
 * (no earlier revision, no unreferenced object survives) and read back: the pages where a rule still matches
 * get another round, and the job fails if any is left after three.
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
    const searched = options.ocr ? await recognised(source.path, input.name, options, ctx) : source.path;
    const mupdf = await loadMupdf();
    const bytes = await readFile(searched);
    let untouched: Mupdf.PDFDocument | undefined;
    const job: Job = {
      rules,
      pages,
      options,
      name,
      untouched: () => {
        untouched ??= new mupdf.PDFDocument(bytes);
        return untouched;
      },
      warnings: [...source.warnings],
      report: { pages: [], total: 0 },
      boxes: new Map(),
    };
    const start = options.ocr ? ocrShare : 0.1;
    const progress = (fraction: number) => reportProgress(ctx, start + fraction * 0.8 * (1 - start));
    let written: Uint8Array = bytes;
    try {
      // Removing words can leave a match MuPDF read apart before (lines set so close that their letters
      // interleave in its reading): each round's output is read back, and the pages where a rule still
      // matches get another round.
      let only: Set<number> | undefined;
      for (let round = 1; ; round += 1) {
        const doc = new mupdf.PDFDocument(written);
        let edited: Uint8Array;
        try {
          redactPages(mupdf, doc, job, only, round === 1 ? progress : () => undefined);
          if (round === 1 && (options.sanitize ?? true)) sanitizeDocument(doc, rules);
          edited = doc.saveToBuffer("").asUint8Array().slice();
        } finally {
          doc.destroy();
        }
        written = await rewrittenWhole(mupdf, edited);
        const left = stillMatching(mupdf, written, rules, pages);
        if (left.length === 0) break;
        if (round === maxRounds) {
          throw new JobFailure(
            "conversion_failed",
            `Text to redact was still found on page ${left[0]} of ${name} after ${maxRounds} rounds of removal, so the file was not delivered: MuPDF's redaction could not take it out of the page (text drawn with no width, or letters of lines set over each other). Redact that page by areas, or convert it to an image first.`,
          );
        }
        only = new Set(left);
      }
    } finally {
      untouched?.destroy();
    }
    const output = join(await freshDir(ctx.workDir, "redact"), pdfNameLike(input.name));
    await writeFile(output, written);
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: options.ocr ? "ocrmypdf+mupdf" : "mupdf",
      warnings: job.warnings,
      report: job.report,
    };
  });
}

/** Share of the progress bar OCR takes, when it runs. */
const ocrShare = 0.5;

/**
 * The checked input with a text layer OCRed onto its scans (OCRmyPDF skips the pages that have text), so the
 * rules find the words the pictures show; their boxes then clear both the new text and the pixels.
 */
async function recognised(
  path: string,
  name: string,
  options: RedactOptions,
  ctx: EngineContext,
): Promise<string> {
  const result = await ocr(
    { path, name },
    { languages: options.languages ?? ["eng"], deskew: false, force: false },
    {
      workDir: await freshDir(ctx.workDir, "ocr"),
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      onProgress: (fraction) => reportProgress(ctx, fraction * ocrShare),
    },
  );
  const [output] = result.outputs;
  if (output === undefined) throw new Error("OCR gave no output");
  return output.path;
}

interface Job {
  rules: Rule[];
  pages: number[];
  options: RedactOptions;
  name: string;
  /** The document as it came, opened on first need: the source of a page drawn as a picture. */
  untouched: () => Mupdf.PDFDocument;
  warnings: string[];
  report: RedactionReport;
  /** Per page (0-based), the boxes drawn so far, over the rounds. */
  boxes: Map<number, Box[]>;
}

/** Rounds of search and removal at most. */
const maxRounds = 3;

/**
 * One round over the pages: the first (`only` undefined) searches the pages asked, clears the areas and
 * removes hidden text; a later one searches again the pages in `only`, where the read-back still found a
 * match. Counts go into the job's report, boxes into job.boxes.
 */
function redactPages(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  job: Job,
  only: Set<number> | undefined,
  progress: (fraction: number) => void,
): void {
  const first = only === undefined;
  const selected = only ?? new Set(job.pages);
  const areaPages = new Set(first ? (job.options.areas ?? []).map((area) => area.page) : []);
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
  const sanitize = first && (job.options.sanitize ?? true);
  for (let index = 0; index < count; index += 1) {
    const number = index + 1;
    if (!sanitize && !selected.has(number) && !areaPages.has(number)) continue;
    const page = doc.loadPage(index);
    try {
      const matches: Record<string, number> = {};
      const areas = first ? (job.options.areas ?? []).filter((area) => area.page === number) : [];
      // An area is cleared whole, whatever lies at its edges.
      let pending: MatchBox[] = areas.map((area) => {
        const box = displayedBox(page, area.rect);
        return { shown: box, cut: box };
      });
      if (selected.has(number) && job.rules.length > 0) {
        const text = pageText(page);
        if (first) refuseUnreadablePage(page, text.text, number, job);
        pending.unshift(...ruleBoxes(text, job.rules, matches));
      }
      const hidden = sanitize ? hiddenGlyphs(mupdf, page) : [];
      if (pending.length === 0 && hidden.length === 0) continue;
      const earlier = job.boxes.get(index) ?? [];
      const boxes: Box[] = [];
      // Drawn before and after each rewrite and compared: where MuPDF moved what it should have left, the
      // page is made from the page as it came (asPicture), with the boxes found before that rewrite.
      const before = drawForCheck(mupdf, page);
      const damaged = (): boolean => {
        const after = drawForCheck(mupdf, page);
        try {
          return changedOutside(before, after, [...earlier, ...boxes], page.getBounds() as Box);
        } finally {
          after.destroy();
        }
      };
      let garbled = false;
      try {
        spellOutQuotes(page);
        if (hidden.length > 0) {
          removeHiddenText(mupdf, page, hidden);
          garbled = damaged();
        }
        if (!garbled && pending.length > 0) {
          boxes.push(...removeUnder(mupdf, doc, page, pending, fill));
          pending = [];
          garbled = damaged();
        }
      } finally {
        before.destroy();
      }
      // Boxes found but not removed (hidden text's removal garbled the page first) go in the picture too.
      const all = [...earlier, ...boxes, ...pending.map((box) => box.shown)];
      job.boxes.set(index, all);
      if (garbled) {
        const untouched = job.untouched().loadPage(index);
        try {
          asPicture(mupdf, doc, page, untouched, all, fill);
          // Hidden text stays out of it, as the rewrite took it out.
          addInvisibleText(mupdf, doc, page, untouched, [...all, ...hidden]);
        } finally {
          untouched.destroy();
        }
        job.warnings.push(
          `Page ${number} of ${job.name} is now a picture of itself: redacting its text would have moved other text on it (a content stream MuPDF rewrites wrongly), so it was drawn with the boxes painted in instead. Its words outside the boxes lie over the picture as invisible text, as on an OCRed scan: they can still be searched and selected, but not edited.`,
        );
      }
      // The picture replaced the boxes drawn in earlier rounds: all are drawn again over it.
      const drawn = garbled ? all : boxes;
      if (drawn.length > 0) fillBoxes(mupdf, doc, page, drawn, fill, label);
      addToReport(job.report, number, matches, areas.length, hidden.length);
    } finally {
      page.destroy();
      progress((index + 1) / count);
    }
  }
}

/** A page's counts, added to its entry (made on its first round with anything removed). */
function addToReport(
  report: RedactionReport,
  page: number,
  matches: Record<string, number>,
  areas: number,
  hidden: number,
): void {
  let entry = report.pages.find((candidate) => candidate.page === page);
  if (entry === undefined) {
    entry = { page, matches: {}, areas: 0 };
    report.pages.push(entry);
    report.pages.sort((a, b) => a.page - b.page);
  }
  for (const [rule, found] of Object.entries(matches)) {
    entry.matches[rule] = (entry.matches[rule] ?? 0) + found;
    report.total += found;
  }
  entry.areas += areas;
  report.total += areas;
  if (hidden > 0) entry.hiddenText = (entry.hiddenText ?? 0) + hidden;
}

/** Where the rules match the page's text, counted into `matches` by rule. */
function ruleBoxes(text: PageText, rules: Rule[], matches: Record<string, number>): MatchBox[] {
  const boxes: MatchBox[] = [];
  for (const rule of rules) {
    for (const match of findMatches(text.text, rule)) {
      matches[match.rule] = (matches[match.rule] ?? 0) + 1;
      boxes.push(...matchBoxes(text, match.start, match.end));
    }
  }
  return boxes;
}

/**
 * Removes what lies under the boxes: the glyphs (each box cut clear of the lines beside it), the image
 * pixels, vector art it covers, and the links and annotations it touches. Returns the whole boxes, to fill.
 */
function removeUnder(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
  boxes: MatchBox[],
  fill: [number, number, number],
): Box[] {
  const shown = boxes.map((box) => box.shown);
  removeTouched(page, shown);
  inlineImagesAsXObjects(mupdf, doc, page);
  const images = coveredImages(mupdf, page, shown);
  for (const box of boxes) page.createAnnotation("Redact").setRect(box.cut);
  // MuPDF's own boxes are black only: ours are drawn after, in the fill colour.
  page.applyRedactions(
    false,
    mupdf.PDFPage.REDACT_IMAGE_PIXELS,
    mupdf.PDFPage.REDACT_LINE_ART_REMOVE_IF_COVERED,
    mupdf.PDFPage.REDACT_TEXT_REMOVE,
  );
  // The image pixels under the whole boxes, cut or not, take the fill.
  fillCoveredPixels(mupdf, doc, page, images, fill);
  return shown;
}

/**
 * Removes the page's hidden text (see hiddenGlyphs) and only that: the images and art where it lies stay
 * as they are, and no box marks the place, since nothing visible changed.
 */
function removeHiddenText(mupdf: MupdfModule, page: Mupdf.PDFPage, glyphs: Box[]): void {
  for (const box of glyphs) page.createAnnotation("Redact").setRect(box);
  page.applyRedactions(
    false,
    mupdf.PDFPage.REDACT_IMAGE_NONE,
    mupdf.PDFPage.REDACT_LINE_ART_NONE,
    mupdf.PDFPage.REDACT_TEXT_REMOVE,
  );
}

/** A page with images and no text may hold the words as pixels, which only OCR can find. */
function refuseUnreadablePage(page: Mupdf.PDFPage, text: string, number: number, job: Job): void {
  if (text.trim() !== "") return;
  const stext = page.toStructuredText("preserve-images");
  let images = 0;
  try {
    stext.walk({
      onImageBlock: (_bbox, _matrix, image) => {
        // MuPDF.js wraps the block's image without a reference of its own (see forgetBorrowed).
        forgetBorrowed(image);
        images += 1;
      },
    });
  } finally {
    stext.destroy();
  }
  if (images === 0) return;
  throw new JobFailure(
    "conversion_failed",
    job.options.ocr
      ? `OCR found no text on page ${number} of ${job.name}, an image, so what to redact cannot be found on it; check options.languages, or redact that page by areas.`
      : `Page ${number} of ${job.name} is an image without a text layer, so the text to redact cannot be found on it; set options.ocr (or run a pipeline of ocr then redact), or redact that page by areas.`,
  );
}

/** [x, y, width, height] from the displayed page's top-left to MuPDF's page space. */
function displayedBox(page: Mupdf.PDFPage, rect: [number, number, number, number]): Box {
  const [x0, y0] = page.getBounds();
  const [x, y, width, height] = rect;
  return [x0 + x, y0 + y, x0 + x + width, y0 + y + height];
}

/** Links, widgets and annotations a box touches go with what is under it. */
function removeTouched(page: Mupdf.PDFPage, boxes: Box[]): void {
  for (const link of page.getLinks()) {
    if (boxes.some((box) => overlaps(link.getBounds(), box))) page.deleteLink(link);
  }
  for (const annotation of [...page.getAnnotations(), ...page.getWidgets()]) {
    if (boxes.some((box) => overlaps(annotation.getBounds(), box))) page.deleteAnnotation(annotation);
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

/** Reads the output back: the pages (1-based) of `pages` where a rule still matches the text. */
function stillMatching(mupdf: MupdfModule, written: Uint8Array, rules: Rule[], pages: number[]): number[] {
  if (rules.length === 0) return [];
  const doc = new mupdf.PDFDocument(written);
  try {
    return pages.filter((number) => {
      const page = doc.loadPage(number - 1);
      try {
        const text = pageText(page).text;
        return rules.some((rule) => findMatches(text, rule).length > 0);
      } finally {
        page.destroy();
      }
    });
  } finally {
    doc.destroy();
  }
}
