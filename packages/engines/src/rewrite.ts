import { drainMupdfLog } from "@octavo/mupdf";
import { detailOf, JobFailure, stoppedFailure } from "./errors.js";
import { countPages, withPdf } from "./mupdf/document.js";
import { outlineLoops } from "./mupdf/outline-cycles.js";
import { type QpdfOutcome, qpdf } from "./qpdf.js";
import { run } from "./run.js";

export type Rewrite = { ok: true; messages: string[] } | { ok: false; messages: string[]; detail: string };

/**
 * qpdf's reconstruction. `rebuildPageTree` copies the pages into an empty file, which drops document-level
 * parts such as bookmarks but replaces an absurd or looping page tree with the pages really present.
 */
export async function rewriteWithQpdf(
  source: string,
  output: string,
  options: { rebuildPageTree: boolean; signal?: AbortSignal | undefined },
): Promise<Rewrite> {
  const args = options.rebuildPageTree ? ["--empty", "--pages", source, "--", output] : [source, output];
  return fromQpdf(await qpdf(args, { signal: options.signal }));
}

function fromQpdf(outcome: QpdfOutcome): Rewrite {
  return outcome.ok
    ? { ok: true, messages: outcome.warnings }
    : { ok: false, messages: outcome.warnings, detail: detailOf(outcome.stderr) };
}

/**
 * MuPDF's reconstruction, in-process. Bookmark loops are cut. `sanitize` rewrites every content stream,
 * which drops undecodable data and out-of-range numbers that make `qpdf --check` fail.
 */
export async function rewriteWithMupdf(
  source: string,
  output: string,
  options: { sanitize: boolean },
): Promise<Rewrite> {
  drainMupdfLog();
  try {
    await withPdf(source, (doc) => {
      if (countPages(doc) === undefined) throw new Error("MuPDF could not read the page tree");
      outlineLoops(doc, { cut: true });
      doc.save(output, options.sanitize ? "garbage=compact,compress,sanitize" : "garbage=compact,compress");
    });
    return { ok: true, messages: drainMupdfLog() };
  } catch (error) {
    const messages = drainMupdfLog();
    return { ok: false, messages, detail: detailOf((error as Error).message, ...messages) };
  }
}

/** Ghostscript re-renders every page into a new file: it breaks loops others keep, but loses structure. */
export async function rewriteWithGhostscript(
  source: string,
  output: string,
  options: { signal?: AbortSignal | undefined },
): Promise<Rewrite> {
  const result = await run(
    "gs",
    [
      "-q",
      "-dNOPAUSE",
      "-dBATCH",
      "-dSAFER",
      "-sDEVICE=pdfwrite",
      `-sOutputFile=${output.replaceAll("%", "%%")}`,
      source,
    ],
    { signal: options.signal },
  );
  if (result.aborted) throw stoppedFailure(options.signal?.reason);
  if (result.timedOut) {
    throw new JobFailure("timeout", "Ghostscript took too long on this file and was stopped.", {
      detail: detailOf(result.stderr),
    });
  }
  const messages = [...new Set(result.stdout.split("\n").map((line) => line.trim()))].filter(
    (line) => line !== "",
  );
  return result.exitCode === 0
    ? { ok: true, messages: messages.slice(0, 20) }
    : { ok: false, messages, detail: detailOf(result.stdout, result.stderr) };
}
