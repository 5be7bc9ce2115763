import { join } from "node:path";
import { loadMupdf } from "@octavo/mupdf";
import { JobFailure } from "../errors.js";
import { openPdf, type PdfDocument } from "../mupdf/document.js";
import { copyOutline } from "../mupdf/outline-copy.js";
import { displayName } from "../names.js";
import { badOutput, reportProgress, runOperation } from "../operation.js";
import { qpdfPageCount } from "../qpdf.js";
import { needsRepair, openSource } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

/**
 * Joins the inputs in the order given with MuPDF, keeping every input's bookmarks, each re-aimed at its
 * page in the merged file. An input whose bookmarks loop keeps its pages and loses its bookmarks.
 */
/** `_options`: merge has none; the parameter gives it the signature of every engine (see EngineExport). */
export async function merge(
  inputs: EngineInput[],
  _options: Readonly<Record<string, never>>,
  ctx: EngineContext,
): Promise<EngineResult> {
  const label = inputs.map((input) => displayName(input.name)).join(", ");
  return runOperation(ctx, label, async (scratchDir) => {
    if (inputs.length === 0) throw new JobFailure("invalid_input", "Merge needs at least one PDF.");
    const mupdf = await loadMupdf();
    const merged = new mupdf.PDFDocument();
    const outline = merged.outlineIterator();
    const warnings: string[] = [];
    let pages = 0;
    const preflights = new Preflights(inputs, scratchDir, ctx.signal);
    try {
      for (const [index, input] of inputs.entries()) {
        const name = displayName(input.name);
        const source = await preflights.take(index);
        warnings.push(...source.warnings);
        const doc = await openPdf(source.path);
        try {
          appendPages(merged, doc, name, ctx.signal);
          const copy = copyOutline(merged, outline, doc, pages);
          if ("skipped" in copy) warnings.push(`The bookmarks of ${name} were left out: ${copy.skipped}.`);
        } finally {
          doc.destroy();
        }
        pages += source.pages;
        reportProgress(ctx, ((index + 1) / inputs.length) * 0.9);
      }
      const output = join(await freshDir(ctx.workDir, "merge"), "merged.pdf");
      merged.save(output, "garbage=compact,compress");
      await requirePages(output, pages, label, ctx.signal);
      return {
        outputs: [{ path: output, name: "merged.pdf", contentType: pdfContentType }],
        engine: "mupdf",
        warnings,
      };
    } finally {
      await preflights.settle();
      outline.destroy();
      merged.destroy();
    }
  });
}

/**
 * The inputs' preflights (openSource: qpdf's page count in its own process, MuPDF's probe here), two
 * ahead of the input being appended, so qpdf reads the next files while MuPDF copies this one's pages.
 */
class Preflights {
  private static readonly ahead = 2;
  private readonly started = new Map<number, ReturnType<typeof openSource>>();

  constructor(
    private readonly inputs: EngineInput[],
    private readonly scratchDir: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Input `index`'s preflight, once it is done; the ones after it start meanwhile. */
  take(index: number): ReturnType<typeof openSource> {
    for (let next = index; next < Math.min(this.inputs.length, index + Preflights.ahead); next += 1) {
      if (this.started.has(next)) continue;
      const input = this.inputs[next] as EngineInput;
      const preflight = freshDir(this.scratchDir, "input").then((dir) => openSource(input, dir, this.signal));
      preflight.catch(() => undefined); // taken below, or waited for by settle()
      this.started.set(next, preflight);
    }
    return this.started.get(index) as ReturnType<typeof openSource>;
  }

  /** Waits for every preflight started, so none outlives the job. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.started.values());
  }
}

function appendPages(
  merged: PdfDocument,
  doc: PdfDocument,
  name: string,
  signal: AbortSignal | undefined,
): void {
  // One graft map per input, so objects its pages share (fonts, images) are copied once.
  const graft = merged.newGraftMap();
  try {
    const count = doc.countPages();
    for (let page = 0; page < count; page += 1) {
      signal?.throwIfAborted();
      graft.graftPage(-1, doc, page);
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    throw needsRepair(name, (error as Error).message);
  } finally {
    graft.destroy();
  }
}

/** qpdf, the second parser, must count every page MuPDF wrote. */
async function requirePages(
  path: string,
  expected: number,
  label: string,
  signal?: AbortSignal,
): Promise<void> {
  const counted = await qpdfPageCount(path, { signal });
  if (counted.pages !== expected) {
    throw badOutput(
      label,
      `the merged file has ${counted.pages ?? "no readable"} pages instead of ${expected}`,
      counted.stderr,
    );
  }
}
