import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { displayName, JobFailure, openSource, pdfNameLike, run } from "@octavo/engines";
import { modelsFor, osdModel, requireModels } from "./languages.js";
import { detailOf, stopped } from "./names.js";
import { maxPageMegapixels, readPageReport, runOcrmypdf, stripInvisibleText, textMode } from "./ocrmypdf.js";
import { ProgressFollower } from "./progress.js";

export interface OcrOptions {
  /** 1 to 3 of `ocrLanguages` (spec default ["eng"]). */
  languages: string[];
  /** Straighten crooked pages and turn sideways pages upright (spec default true). */
  deskew: boolean;
  /** Re-OCR pages that already have text, replacing their text layer (spec default false). */
  force: boolean;
}

export interface OcrInput {
  path: string;
  /** The client's file name, e.g. "scan.pdf"; the output is named like it. */
  name: string;
}

export interface OcrContext {
  /** Outputs and scratch files go inside this directory. */
  workDir: string;
  /** Aborting kills OCRmyPDF and everything it started, and fails the job with `timeout`. */
  signal?: AbortSignal;
  /** Called with rising fractions 0..1 as pages are recognised. */
  onProgress?: (fraction: number) => void;
  /** Pages OCR'd in parallel: the worker's CPU share (default 2). */
  cpus?: number;
}

export interface OcrOutput {
  path: string;
  name: string;
  contentType: string;
}

export interface OcrResult {
  outputs: OcrOutput[];
  engine: string;
  warnings: string[];
}

export const ocrDefaults = {
  cpus: 2,
  /** The spec's job limit (5 minutes); the caller's signal normally ends a job first. */
  timeoutMs: 300_000,
} as const;

/** Adds a searchable text layer to a scanned PDF with OCRmyPDF (native Tesseract). */
export async function ocr(input: OcrInput, options: OcrOptions, ctx: OcrContext): Promise<OcrResult> {
  const name = displayName(input.name);
  let scratchDir: string | undefined;
  let outDir: string | undefined;
  let delivered = false;
  try {
    ctx.signal?.throwIfAborted();
    const models = modelsFor(options.languages);
    const deskew = options.deskew !== false;
    const force = options.force === true;
    await requireModels(deskew ? [...models, osdModel] : models);
    scratchDir = await mkdtemp(join(resolve(ctx.workDir), ".ocr-scratch-"));
    // The preflight every structural operation shares: refuses non-PDFs, encrypted files and protected
    // wrappers, and hands over a copy rebuilt by qpdf or MuPDF when the input is damaged.
    const checked = await openSource(input, scratchDir, ctx.signal);
    report(ctx, 0.01);

    outDir = await mkdtemp(join(resolve(ctx.workDir), "ocr-"));
    const output = join(outDir, "ocr.pdf");
    const sidecar = join(scratchDir, "text.txt");
    const progressFile = join(scratchDir, "progress.tsv");
    await mkdir(join(scratchDir, "tmp"));
    const mode = textMode(force, deskew);
    // force without deskew redoes OCR on the original pages; their old text layer goes first.
    let source = checked.path;
    if (mode === "redo-ocr") {
      source = join(scratchDir, "without-text.pdf");
      await stripInvisibleText(checked.path, source, join(scratchDir, "tmp"), ctx.signal, name);
    }

    const follower = new ProgressFollower(progressFile, (fraction) => report(ctx, fraction));
    follower.start();
    let stderr: string;
    try {
      const result = await runOcrmypdf(
        {
          input: source,
          output,
          sidecar,
          progressFile,
          scratchDir: join(scratchDir, "tmp"),
          models,
          mode,
          deskew,
          jobs: jobsFor(ctx.cpus),
          timeoutMs: ocrDefaults.timeoutMs,
          signal: ctx.signal,
        },
        name,
      );
      stderr = result.stderr;
    } finally {
      await follower.stop();
    }

    await checkOutput(output, checked.pages, name, ctx.signal);
    const pages = readPageReport(stderr);
    if (pages.tooBig.length === checked.pages) {
      throw new JobFailure(
        "invalid_input",
        `${name} has no page OCR can handle: ${pageList(pages.tooBig)} ${pages.tooBig.length === 1 ? "is" : "are"} larger than ${maxPageMegapixels} megapixels. Scan at a lower resolution (300 dpi is enough for OCR).`,
        { detail: detailOf(stderr) },
      );
    }
    const recognised = await readFile(sidecar, "utf8").catch(() => "");
    const warnings = [
      // openSource's damage warnings ("… is damaged; qpdf reconstructed it (…)").
      ...checked.warnings,
      ...pageWarnings(name, pages, checked.pages),
    ];
    const ocrPages = checked.pages - pages.keptText.length - pages.noImages.length - pages.tooBig.length;
    if (ocrPages > 0 && !hasRecognisedText(recognised)) {
      warnings.push(
        `No text was recognised in ${name}; check that the chosen languages (${models.join(", ")}) match the document.`,
      );
    }
    report(ctx, 1);
    delivered = true;
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: "application/pdf" }],
      engine: "ocrmypdf",
      warnings,
    };
  } catch (error) {
    if (error instanceof JobFailure) throw error;
    if (ctx.signal?.aborted) throw stopped(ctx.signal.reason);
    throw new JobFailure(
      "conversion_failed",
      `OCR of ${name} failed unexpectedly; if the file opens in a PDF viewer, try the repair operation first.`,
      {
        detail: detailOf(error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
        cause: error,
      },
    );
  } finally {
    if (scratchDir !== undefined) await rm(scratchDir, { recursive: true, force: true });
    if (outDir !== undefined && !delivered) await rm(outDir, { recursive: true, force: true });
  }
}

function report(ctx: OcrContext, fraction: number): void {
  ctx.onProgress?.(Math.min(1, Math.max(0, fraction)));
}

function jobsFor(cpus: number | undefined): number {
  const wanted = cpus === undefined || !Number.isFinite(cpus) ? ocrDefaults.cpus : Math.floor(cpus);
  return Math.min(64, Math.max(1, wanted));
}

/** The output must exist and have the input's pages; qpdf reads it independently of OCRmyPDF's pikepdf. */
async function checkOutput(path: string, pages: number, name: string, signal?: AbortSignal): Promise<void> {
  const counted = await run("qpdf", ["--show-npages", "--", path], { signal, timeoutMs: 60_000 });
  if (counted.aborted || signal?.aborted) throw stopped(signal?.reason);
  const outPages = Number.parseInt(counted.stdout.trim(), 10);
  if ((counted.exitCode === 0 || counted.exitCode === 3) && outPages === pages) return;
  throw new JobFailure(
    "conversion_failed",
    `The OCR result for ${name} did not pass its check (${Number.isInteger(outPages) ? `${outPages} pages instead of ${pages}` : "it cannot be read"}), so it was not delivered.`,
    { detail: detailOf(counted.stderr) },
  );
}

function pageWarnings(name: string, pages: ReturnType<typeof readPageReport>, total: number): string[] {
  const warnings: string[] = [];
  if (pages.keptText.length === total) {
    warnings.push(
      `Every page of ${name} already has text, so nothing was OCR'd; set force to true to OCR it again.`,
    );
  } else if (pages.keptText.length > 0) {
    warnings.push(
      `${cap(pageList(pages.keptText))} already had text and ${pages.keptText.length === 1 ? "was" : "were"} kept as ${pages.keptText.length === 1 ? "it was" : "they were"}.`,
    );
  }
  if (pages.noImages.length > 0) {
    warnings.push(
      `${cap(pageList(pages.noImages))} had no scanned image and ${pages.noImages.length === 1 ? "was" : "were"} left unchanged.`,
    );
  }
  if (pages.tooBig.length > 0) {
    warnings.push(
      `${cap(pageList(pages.tooBig))} ${pages.tooBig.length === 1 ? "is" : "are"} larger than ${maxPageMegapixels} megapixels and got no OCR.`,
    );
  }
  if (pages.gaveUp.length > 0) {
    warnings.push(
      `OCR gave up on ${pageList(pages.gaveUp)} (too slow); ${pages.gaveUp.length === 1 ? "it has" : "they have"} no text layer.`,
    );
  }
  if (pages.rotated.length > 0) {
    warnings.push(
      `${cap(pageList(pages.rotated))} ${pages.rotated.length === 1 ? "was" : "were"} turned upright.`,
    );
  }
  return warnings;
}

function pageList(pages: number[]): string {
  const shown = pages.slice(0, 10).join(", ");
  const more = pages.length > 10 ? ` and ${pages.length - 10} more` : "";
  return `${pages.length === 1 ? "page" : "pages"} ${shown}${more}`;
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** OCRmyPDF writes "[OCR skipped on page(s) …]" for pages it left alone; anything else is recognised text. */
function hasRecognisedText(sidecar: string): boolean {
  return /[\p{L}\p{N}]/u.test(sidecar.replace(/\[OCR skipped on page\(s\)[^\]]*\]/g, ""));
}
