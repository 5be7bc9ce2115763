import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { findProgram, JobFailure, type RunResult, run } from "@octavo/engines";
import { detailOf, stopped } from "./names.js";

/** The progress plugin shipped beside dist/ and src/ (both are one level below the package root). */
export const progressPlugin = fileURLToPath(new URL("../python/octavo_progress.py", import.meta.url));

/** Removes invisible text layers (also inside Form XObjects) before `--redo-ocr`; see the script's docstring. */
export const stripTextScript = fileURLToPath(new URL("../python/octavo_strip_text.py", import.meta.url));

/** Pages whose raster is larger than this are left without OCR (`--skip-big`); OCRmyPDF's own bomb limit is 250. */
export const maxPageMegapixels = 150;

/** How OCRmyPDF treats pages that already have text. */
export type TextMode = "skip-text" | "redo-ocr" | "force-ocr";

export interface OcrmypdfJob {
  input: string;
  output: string;
  sidecar: string;
  progressFile: string;
  scratchDir: string;
  models: readonly string[];
  mode: TextMode;
  deskew: boolean;
  jobs: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/**
 * `force` false → `--skip-text`: pages with text are copied as they are, the others get OCR.
 * `force` true  → `--redo-ocr` when pages are not deskewed: the old invisible text layer is removed (by
 *   `stripInvisibleText` first, since OCRmyPDF 14 misses layers inside Form XObjects) and replaced, the page
 *   images and any visible text stay untouched (no rasterising);
 *   `--force-ocr` when they are deskewed (OCRmyPDF cannot redo OCR and deskew together): every page is
 *   rasterised, straightened and OCR'd again, so no old text layer survives.
 */
export function textMode(force: boolean, deskew: boolean): TextMode {
  if (!force) return "skip-text";
  return deskew ? "force-ocr" : "redo-ocr";
}

export function ocrmypdfArgs(job: OcrmypdfJob): string[] {
  return [
    "--plugin",
    progressPlugin,
    "-l",
    job.models.join("+"),
    // Plain PDF: Debian's Ghostscript 10.0.0 makes OCRmyPDF refuse the PDF/A path with --skip-text/--redo-ocr.
    "--output-type",
    "pdf",
    // No optimisation at all, so nothing is recompressed (no lossy JPEG or JBIG2).
    "--optimize",
    "0",
    "--jobs",
    String(job.jobs),
    "--skip-big",
    String(maxPageMegapixels),
    `--${job.mode}`,
    ...(job.deskew ? ["--deskew", "--rotate-pages"] : []),
    "--sidecar",
    job.sidecar,
    "--",
    job.input,
    job.output,
  ];
}

/** Runs OCRmyPDF; returns its result when it exited 0, else throws the matching JobFailure. */
export async function runOcrmypdf(job: OcrmypdfJob, name: string): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = {
    ...pythonEnv(job.scratchDir),
    // One Tesseract thread per page process: with OCRmyPDF's default (up to 3) two pages on two cores
    // oversubscribe, and OpenMP's spinning tripled the time of a page on a busy machine (measured).
    OMP_THREAD_LIMIT: "1",
    OCTAVO_OCR_PROGRESS: job.progressFile,
  };

  const result = await run("ocrmypdf", ocrmypdfArgs(job), {
    signal: job.signal,
    timeoutMs: job.timeoutMs,
    // CPU seconds are counted per process and OCRmyPDF's threads add up in the parent.
    cpuSeconds: Math.ceil(job.timeoutMs / 1000) * Math.max(1, job.jobs),
    env,
    cwd: job.scratchDir,
  });
  if (result.aborted || job.signal?.aborted) throw stopped(job.signal?.reason);
  if (result.timedOut) throw stopped(`ocrmypdf stopped after ${result.durationMs} ms`);
  if (result.exitCode === 0) return result;
  throw failureOf(result, name);
}

/** The environment for Debian's Python programs: temporary files in the job's scratch directory, no user site. */
function pythonEnv(scratchDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // OCRmyPDF's (large) temporary files go to the job's scratch directory and leave with it.
    TMPDIR: scratchDir,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONNOUSERSITE: "1",
  };
  // Debian's ocrmypdf runs on Debian's python3; a developer's pyenv or virtualenv must not leak into it.
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  delete env.VIRTUAL_ENV;
  return env;
}

let interpreter: Promise<string> | undefined;

/** The Python that runs `ocrmypdf` (its #! line; Debian: /usr/bin/python3), which has pikepdf. */
export function ocrmypdfPython(): Promise<string> {
  interpreter ??= findInterpreter();
  return interpreter;
}

async function findInterpreter(): Promise<string> {
  const program = findProgram("ocrmypdf");
  if (program !== undefined) {
    const first = (await readFile(program, "latin1")).split("\n", 1)[0] ?? "";
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
    // "#!/usr/bin/env python3" names the program in its argument.
    if (shebang?.[1] !== undefined) {
      return shebang[1].endsWith("/env") && shebang[2] !== undefined ? shebang[2] : shebang[1];
    }
  }
  return "/usr/bin/python3";
}

/**
 * Copies `input` to `output` without its invisible text (the old OCR layer), page content and Form XObjects
 * alike; images and other streams keep their bytes. Returns the number of text objects removed.
 */
export async function stripInvisibleText(
  input: string,
  output: string,
  scratchDir: string,
  signal: AbortSignal | undefined,
  name: string,
): Promise<number> {
  const result = await run(await ocrmypdfPython(), [stripTextScript, input, output], {
    signal,
    timeoutMs: 120_000,
    env: pythonEnv(scratchDir),
    cwd: scratchDir,
  });
  if (result.aborted || signal?.aborted) throw stopped(signal?.reason);
  if (result.timedOut) throw stopped(`removing the old text layer stopped after ${result.durationMs} ms`);
  if (result.exitCode === 0) return Number.parseInt(result.stdout.trim(), 10) || 0;
  throw new JobFailure(
    "conversion_failed",
    `The existing text layer of ${name} could not be removed for OCR; if the file opens in a PDF viewer, try the repair operation first.`,
    { detail: detailOf(`strip text exit ${result.exitCode ?? result.signal}`, result.stderr) },
  );
}

/** OCRmyPDF's exit codes (ocrmypdf.exceptions.ExitCode). */
const exitMeaning: Record<number, string> = {
  1: "OCRmyPDF rejected its arguments",
  2: "OCRmyPDF could not read the file as a PDF",
  3: "a program OCRmyPDF needs is missing",
  4: "OCRmyPDF produced an invalid PDF",
  5: "OCRmyPDF could not access a file",
  6: "the file already has text",
  7: "Tesseract or another helper program failed",
  8: "the file is encrypted",
  9: "OCRmyPDF's configuration is invalid",
  10: "the PDF/A conversion failed",
  15: "OCRmyPDF hit an unexpected error",
};

function failureOf(result: RunResult, name: string): JobFailure {
  const detail = detailOf(`ocrmypdf exit ${result.exitCode ?? result.signal}`, result.stderr);
  const error = lastPythonError(result.stderr);
  if (result.exitCode === 8) {
    return new JobFailure(
      "password_required",
      `${name} is encrypted; run the unlock operation with its password first, then try again with the unlocked file.`,
      { detail },
    );
  }
  if (error === "DecompressionBombError") {
    return new JobFailure(
      "invalid_input",
      `${name} has a page image too large to OCR (more than ${maxPageMegapixels} megapixels). Scan it at a lower resolution or split the image.`,
      { detail },
    );
  }
  if (error === "MemoryError" || /std::bad_alloc|Cannot allocate memory|out of memory/i.test(result.stderr)) {
    return new JobFailure(
      "conversion_failed",
      `OCR of ${name} ran out of memory; its pages are too large or too many. Try a smaller file or a lower scan resolution.`,
      { detail },
    );
  }
  if (undecodableImage(error, result.stderr)) {
    return new JobFailure(
      "invalid_input",
      `${name} has an image whose data cannot be decoded, so its page cannot be read for OCR. Check that the file shows its images in a PDF viewer, or run the repair operation on it first.`,
      { detail },
    );
  }
  if (result.exitCode === 2) {
    return new JobFailure(
      "invalid_input",
      `OCRmyPDF could not read ${name} as a PDF; it may be damaged. Run the repair operation on it first, then try again.`,
      { detail },
    );
  }
  const what =
    result.exitCode === null
      ? `the OCR engine was killed (${result.signal ?? "signal"})`
      : (exitMeaning[result.exitCode] ?? `OCRmyPDF exited with code ${result.exitCode}`);
  // The exception's class name stays in the detail: it means nothing to the client.
  return new JobFailure("conversion_failed", `OCR of ${name} failed: ${what}.`, { detail });
}

/**
 * Pillow could not open an image of the page (garbage JPEG 2000 data), or qpdf's check of the output
 * found an image stream that does not decode (garbage JPEG data, copied through unchanged).
 */
function undecodableImage(error: string | undefined, stderr: string): boolean {
  return (
    error === "UnidentifiedImageError" ||
    /cannot identify image file|error decoding stream data for object \d+ \d+: Not a JPEG file/.test(stderr)
  );
}

/** The class name of the last Python exception in a traceback, e.g. "PriorOcrFoundError". */
function lastPythonError(stderr: string): string | undefined {
  const names = [...stderr.matchAll(/^(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit))\b:?/gm)].map(
    (match) => match[1],
  );
  return names.at(-1);
}

/** What OCRmyPDF's INFO/WARNING log says it did per page (it prefixes page lines with the page number). */
export interface PageReport {
  /** Pages left without OCR because they already had text (`--skip-text`). */
  keptText: number[];
  /** Pages without images (vector only) left as they were. */
  noImages: number[];
  /** Pages over the size limit, left without OCR. */
  tooBig: number[];
  /** Pages turned upright (`--rotate-pages`). */
  rotated: number[];
  /** Pages where Tesseract gave up (per-page timeout). */
  gaveUp: number[];
}

export function readPageReport(stderr: string): PageReport {
  const report: PageReport = { keptText: [], noImages: [], tooBig: [], rotated: [], gaveUp: [] };
  for (const line of stderr.split("\n")) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const page = Number(match[1]);
    const text = match[2] ?? "";
    if (text.startsWith("skipping all processing on this page")) report.keptText.push(page);
    else if (text.startsWith("page has no images - skipping")) report.noImages.push(page);
    else if (text.startsWith("page too big, skipping OCR")) report.tooBig.push(page);
    else if (/\bwill rotate\b/.test(text)) report.rotated.push(page);
    else if (/timeout|timed out|took too long/i.test(text)) report.gaveUp.push(page);
  }
  for (const list of [report.keptText, report.noImages, report.tooBig, report.rotated, report.gaveUp]) {
    list.sort((a, b) => a - b);
  }
  return report;
}
