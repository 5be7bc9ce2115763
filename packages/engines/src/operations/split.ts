import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { countPages, withPdf } from "../mupdf/document.js";
import { displayName, stemOf } from "../names.js";
import { badOutput, reportProgress, runOperation } from "../operation.js";
import { formatRange, type PageRange, parsePageRanges, requireWithin } from "../page-ranges.js";
import { qpdf } from "../qpdf.js";
import { needsRepair, openSource, type PdfSource } from "../source.js";
import {
  type EngineContext,
  type EngineInput,
  type EngineOutput,
  type EngineResult,
  pdfContentType,
} from "../types.js";
import { freshDir } from "../workspace.js";
import { type SplitMode, splitByMode } from "./split-modes.js";

export interface SplitOptions {
  /** pages (the spec's split, the default), count, size or bookmarks. */
  mode?: "pages" | "count" | "size" | "bookmarks";
  /** Mode pages: "1-3,5,7-9": one output per range; omitted = one output per page. */
  ranges?: string;
  /** Mode count: pages per part. */
  pages?: number;
  /** Mode size: the largest a part may be. */
  maxBytes?: number;
  /** Mode bookmarks: the outline level that starts a part (1: the top level). */
  level?: number;
}

/**
 * One PDF per page, or per range of `ranges`, cut losslessly by qpdf; or, in the other modes, every N
 * pages, as much as fits a size, or a part per bookmark (split-modes.ts).
 */
export async function split(
  input: EngineInput,
  options: SplitOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const mode = splitMode(options);
    if (mode !== undefined) {
      const source = await openSource(input, scratchDir, ctx.signal);
      const { outputs, warnings } = await splitByMode(source, mode, stemOf(input.name), name, ctx);
      return { outputs, engine: "mupdf", warnings: [...source.warnings, ...warnings] };
    }
    const ranges = options.ranges === undefined ? undefined : parsePageRanges(options.ranges, "ranges");
    const source = await openSource(input, scratchDir, ctx.signal);
    if (ranges !== undefined) requireWithin(ranges, source.pages, name);
    const outDir = await freshDir(ctx.workDir, "split");
    const parts =
      ranges ?? Array.from({ length: source.pages }, (_, index) => ({ from: index + 1, to: index + 1 }));
    const paths =
      ranges === undefined
        ? await splitPerPage(source, outDir, ctx, name)
        : await splitPerRange(source, ranges, outDir, ctx, name);
    const outputs: EngineOutput[] = [];
    for (const [index, part] of parts.entries()) {
      const path = paths[index];
      if (path === undefined)
        throw badOutput(name, `qpdf wrote ${paths.length} files for ${parts.length} parts`);
      await requirePages(path, part.to - part.from + 1, name);
      outputs.push({
        path,
        name: `${stemOf(input.name)}-p${formatRange(part)}.pdf`,
        contentType: pdfContentType,
      });
    }
    return { outputs, engine: "qpdf", warnings: source.warnings };
  });
}

/** The mode beyond the spec's pages, with its option (the API made sure it is there). */
function splitMode(options: SplitOptions): SplitMode | undefined {
  switch (options.mode) {
    case "count":
      return { mode: "count", pages: options.pages ?? 1 };
    case "size":
      return { mode: "size", maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER };
    case "bookmarks":
      return { mode: "bookmarks", level: options.level ?? 1 };
    default:
      return undefined;
  }
}

async function splitPerPage(
  source: PdfSource,
  outDir: string,
  ctx: EngineContext,
  name: string,
): Promise<string[]> {
  const outcome = await qpdf(["--split-pages", source.path, join(outDir, "page-%d.pdf")], {
    signal: ctx.signal,
  });
  if (!outcome.ok) throw needsRepair(name, outcome.stderr);
  reportProgress(ctx, 0.9);
  // qpdf zero-pads the page numbers to one width, so name order is page order.
  const files = (await readdir(outDir)).filter((file) => file.startsWith("page-")).sort();
  return files.map((file) => join(outDir, file));
}

async function splitPerRange(
  source: PdfSource,
  ranges: PageRange[],
  outDir: string,
  ctx: EngineContext,
  name: string,
): Promise<string[]> {
  const paths: string[] = [];
  for (const [index, range] of ranges.entries()) {
    const path = join(outDir, `part-${index + 1}.pdf`);
    const outcome = await qpdf(["--empty", "--pages", source.path, formatRange(range), "--", path], {
      signal: ctx.signal,
    });
    if (!outcome.ok) throw needsRepair(name, outcome.stderr);
    paths.push(path);
    reportProgress(ctx, (index + 1) / ranges.length);
  }
  return paths;
}

/** The second parser confirms each part has the pages it should. */
async function requirePages(path: string, expected: number, fileName: string): Promise<void> {
  const pages = await withPdf(path, countPages);
  if (pages !== expected)
    throw badOutput(fileName, `a part has ${pages ?? "no readable"} pages instead of ${expected}`);
}
