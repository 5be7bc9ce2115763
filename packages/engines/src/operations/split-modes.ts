import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "../errors.js";
import { countPages, type PdfDocument, withPdf } from "../mupdf/document.js";
import { outlineLoops } from "../mupdf/outline-cycles.js";
import { safeFileName, UniqueNames } from "../names.js";
import { badOutput, reportProgress } from "../operation.js";
import { formatRange, type PageRange } from "../page-ranges.js";
import { qpdf } from "../qpdf.js";
import { needsRepair, type PdfSource } from "../source.js";
import { type EngineContext, type EngineOutput, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";
import { cutToRange } from "./split-part.js";

/*
 * Split PDF's modes beyond the spec's pages: every N pages, parts as large as fit a size, and a part per
 * bookmark. Each part keeps the bookmarks, links and form fields whose targets stay in it (split-part.ts).
 */

export type SplitMode =
  | { mode: "count"; pages: number }
  | { mode: "size"; maxBytes: number }
  | { mode: "bookmarks"; level: number };

interface Part extends PageRange {
  /** The output's name. */
  name: string;
}

export async function splitByMode(
  source: PdfSource,
  mode: SplitMode,
  stem: string,
  fileName: string,
  ctx: EngineContext,
): Promise<{ outputs: EngineOutput[]; warnings: string[] }> {
  const outDir = await freshDir(ctx.workDir, "split");
  const writer = new PartWriter(source.path, fileName, ctx.signal);
  const { outputs, warnings } =
    mode.mode === "size"
      ? await splitBySize(source, mode.maxBytes, stem, outDir, writer, ctx)
      : {
          outputs: await writeParts(
            mode.mode === "count"
              ? everyNPages(source.pages, mode.pages, stem)
              : await withPdf(source.path, (doc) => bookmarkParts(doc, mode.level, stem, fileName)),
            outDir,
            writer,
            ctx,
          ),
          warnings: [],
        };
  if (writer.cutByQpdf) {
    warnings.push(
      `${fileName} is damaged in a way that kept MuPDF from cutting its pages, so qpdf cut them; its parts have no bookmarks or form fields.`,
    );
  }
  return { outputs, warnings };
}

async function writeParts(
  parts: Part[],
  outDir: string,
  writer: PartWriter,
  ctx: EngineContext,
): Promise<EngineOutput[]> {
  const outputs: EngineOutput[] = [];
  for (const [index, part] of parts.entries()) {
    const path = join(outDir, `part-${index + 1}.pdf`);
    await writer.write(part, path);
    outputs.push({ path, name: part.name, contentType: pdfContentType });
    reportProgress(ctx, (index + 1) / parts.length);
  }
  return outputs;
}

function everyNPages(pages: number, size: number, stem: string): Part[] {
  const parts: Part[] = [];
  for (let from = 1; from <= pages; from += size) {
    const range = { from, to: Math.min(pages, from + size - 1) };
    parts.push({ ...range, name: `${stem}-p${formatRange(range)}.pdf` });
  }
  return parts;
}

/**
 * A part from each bookmark at `level` or above to the next one; pages before the first go in a part of
 * their own. Bookmarks that start on the same page make one part, named after the deepest of them.
 */
function bookmarkParts(doc: PdfDocument, level: number, stem: string, fileName: string): Part[] {
  const pages = countPages(doc) ?? 0;
  const starts = outlineStarts(doc, level, fileName);
  if (starts.size === 0) {
    throw new JobFailure(
      "invalid_options",
      `${fileName} has no bookmarks that point to its pages, so it cannot be split by bookmarks; use mode "count" or "size".`,
    );
  }
  const firstPages = [...starts.keys()].sort((a, b) => a - b);
  const parts: Part[] = [];
  const names = new UniqueNames(".pdf");
  if ((firstPages[0] ?? 1) > 1) {
    const front = { from: 1, to: (firstPages[0] ?? 1) - 1 };
    parts.push({ ...front, name: names.take(`${stem}-p${formatRange(front)}`) });
  }
  firstPages.forEach((from, index) => {
    const to = (firstPages[index + 1] ?? pages + 1) - 1;
    parts.push({ from, to, name: names.take(safeFileName(starts.get(from) ?? "", `${stem}-p${from}`)) });
  });
  return parts;
}

/** First page (1-based) → the title that names its part, from the bookmarks at `level` or above. */
function outlineStarts(doc: PdfDocument, level: number, fileName: string): Map<number, string> {
  if (outlineLoops(doc, { cut: false }) > 0) {
    throw new JobFailure(
      "invalid_input",
      `${fileName}'s bookmarks loop back on themselves, so it cannot be split by them; repair it first or use mode "count".`,
    );
  }
  const starts = new Map<number, { title: string; depth: number }>();
  const visit = (items: ReturnType<PdfDocument["loadOutline"]>, depth: number): void => {
    for (const item of items ?? []) {
      const page = item.page;
      if (page !== undefined && page >= 0) {
        const known = starts.get(page + 1);
        if (known === undefined || depth > known.depth)
          starts.set(page + 1, { title: item.title ?? "", depth });
      }
      if (depth < level) visit(item.down ?? null, depth + 1);
    }
  };
  visit(doc.loadOutline(), 1);
  return new Map([...starts].map(([page, start]) => [page, start.title]));
}

/**
 * Parts as large as fit in `maxBytes`, found by trying them: a part's size is not the sum of its pages'
 * (fonts and images are shared), so each is grown by doubling, then narrowed by halving, measuring the
 * written part each time. A page over the limit on its own goes alone, with a warning.
 */
async function splitBySize(
  source: PdfSource,
  maxBytes: number,
  stem: string,
  outDir: string,
  writer: PartWriter,
  ctx: EngineContext,
): Promise<{ outputs: EngineOutput[]; warnings: string[] }> {
  const outputs: EngineOutput[] = [];
  const warnings: string[] = [];
  const fileName = writer.fileName;
  let attempt = 0;
  const tryPart = async (from: number, to: number): Promise<{ path: string; bytes: number }> => {
    attempt += 1;
    const path = join(outDir, `try-${attempt}.pdf`);
    await writer.write({ from, to }, path);
    return { path, bytes: (await stat(path)).size };
  };
  for (let from = 1; from <= source.pages; ) {
    let best = await tryPart(from, from);
    let bestTo = from;
    // A part that fits replaces the smaller one kept so far; one too large is thrown away.
    const judge = async (tried: { path: string; bytes: number }, to: number): Promise<boolean> => {
      if (tried.bytes > maxBytes) {
        await rm(tried.path, { force: true });
        return false;
      }
      await rm(best.path, { force: true });
      [best, bestTo] = [tried, to];
      return true;
    };
    if (best.bytes > maxBytes) {
      warnings.push(
        `Page ${from} of ${fileName} is ${megabytes(best.bytes)} on its own, over maxBytes (${megabytes(maxBytes)}); it is in a file of its own.`,
      );
    } else {
      let failedTo = source.pages + 1;
      // Grow: 2, 4, 8 … pages until a part is too large or reaches the end.
      for (let length = 2; from + length - 1 <= source.pages; length *= 2) {
        const to = from + length - 1;
        if (!(await judge(await tryPart(from, to), to))) {
          failedTo = to;
          break;
        }
      }
      if (failedTo > source.pages && bestTo < source.pages) {
        if (!(await judge(await tryPart(from, source.pages), source.pages))) failedTo = source.pages;
      }
      // Narrow: the last page that fits lies between bestTo and failedTo.
      while (failedTo - bestTo > 1) {
        const to = Math.floor((bestTo + failedTo) / 2);
        if (!(await judge(await tryPart(from, to), to))) failedTo = to;
      }
    }
    const range = { from, to: bestTo };
    outputs.push({
      path: best.path,
      name: `${stem}-p${formatRange(range)}.pdf`,
      contentType: pdfContentType,
    });
    reportProgress(ctx, bestTo / source.pages);
    from = bestTo + 1;
  }
  return { outputs, warnings };
}

/**
 * Writes parts of one source: by MuPDF, keeping what belongs to the part (split-part.ts); where MuPDF cannot
 * cut a damaged file's pages (it throws, or the part has the wrong pages), by qpdf, which keeps the pages
 * alone. Each part is checked for its page count.
 */
class PartWriter {
  /** Some part was cut by qpdf. */
  cutByQpdf = false;

  constructor(
    private readonly sourcePath: string,
    readonly fileName: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async write(range: PageRange, path: string): Promise<void> {
    const expected = range.to - range.from + 1;
    const byMupdf = await withPdf(this.sourcePath, (doc) => {
      cutToRange(doc, range);
      return doc.saveToBuffer("garbage=compact").asUint8Array();
    }).catch(() => undefined);
    if (byMupdf !== undefined) {
      await writeFile(path, byMupdf);
      if ((await withPdf(path, countPages).catch(() => undefined)) === expected) return;
    }
    const outcome = await qpdf(["--empty", "--pages", this.sourcePath, formatRange(range), "--", path], {
      signal: this.signal,
    });
    if (!outcome.ok) throw needsRepair(this.fileName, outcome.stderr);
    const pages = await withPdf(path, countPages);
    if (pages !== expected)
      throw badOutput(this.fileName, `a part has ${pages ?? "no readable"} pages instead of ${expected}`);
    this.cutByQpdf = true;
  }
}

function megabytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.round(bytes / 1000)} KB`;
}
