import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  badOutput,
  damageWarning,
  JobFailure,
  needsRepair,
  type PdfDocument,
  qpdfCheck,
  rewriteWithMupdf,
  withPdf,
} from "@octavo/engines";
import { drainMupdfLog } from "@octavo/mupdf";

/** Unused objects dropped and renumbered, streams compressed. */
export const compactingSave = "garbage=compact,compress";

/** How an operation edits a PDF in place. */
export interface PdfEdit<T> {
  /** What the edit does, for the message when the file is too damaged: "add the watermark to it". */
  purpose: string;
  /** MuPDF's save options for the edited file. */
  saveOptions: string;
  /**
   * Page content that qpdf cannot read to its end (the file passes `qpdf --check` with warnings) is
   * rewritten too: viewers stop there as well, so what the edit appends after it might never be drawn.
   */
  needsReadableContent: boolean;
  /** Edits the open document; `progress` takes 0..1 as the edit advances. */
  edit(doc: PdfDocument, progress: (fraction: number) => void): T;
}

export interface SaveTarget {
  /** The file to edit: openSource's path. */
  source: string;
  output: string;
  scratchDir: string;
  /** The client's file name, for messages. */
  name: string;
  signal: AbortSignal | undefined;
  /** Called with 0..1 over the whole save. */
  progress(fraction: number): void;
}

export interface Saved<T> {
  result: T;
  warnings: string[];
  /** The edit was made on a copy whose page content MuPDF rewrote. */
  contentRewritten: boolean;
}

/** One route to an output: where it started from (the input or MuPDF's repair of it) and how it ended. */
type Attempt<T> = { base: string; warnings: string[] } & (
  | { result: T; check: OutputCheck }
  | { error: unknown }
);

/**
 * Makes the edit and writes it to `target.output`, which must pass `qpdf --check`. When the edited file
 * fails it, or MuPDF cannot make the edit, the edit is made again on a copy whose content streams MuPDF
 * has rewritten (sanitize: what cannot be decoded is dropped, what was left open is closed). The content
 * is rewritten before the edit, not with it: content appended after an unterminated inline image would
 * be read as part of that image and never drawn.
 */
export async function saveChecked<T>(target: SaveTarget, edit: PdfEdit<T>): Promise<Saved<T>> {
  const asIs = await attempt(target.source, "as-is", target, edit, (fraction) =>
    target.progress(fraction / 2),
  );
  if ("check" in asIs && asIs.check.passed && !(edit.needsReadableContent && asIs.check.contentDamaged)) {
    return { result: asIs.result, warnings: asIs.warnings, contentRewritten: false };
  }
  const rewritten = join(target.scratchDir, "content-rewritten.pdf");
  const rewrite = await rewriteWithMupdf(asIs.base, rewritten, { sanitize: true });
  const again: Attempt<T> = rewrite.ok
    ? await attempt(rewritten, "rewritten", target, edit, (fraction) => target.progress(0.5 + fraction / 2))
    : { base: asIs.base, warnings: [], error: new Error(`MuPDF could not rewrite it: ${rewrite.detail}`) };
  if ("check" in again && again.check.passed) {
    return { result: again.result, warnings: [...asIs.warnings, ...again.warnings], contentRewritten: true };
  }
  throw await notSaved(target, edit.purpose, [asIs, again]);
}

/** Edits `from` and checks the output; `route` names the copy MuPDF's repair may call for. */
async function attempt<T>(
  from: string,
  route: string,
  target: SaveTarget,
  edit: PdfEdit<T>,
  progress: (fraction: number) => void,
): Promise<Attempt<T>> {
  drainMupdfLog();
  const first = await editOnce(from, target, edit, progress);
  if (!("repaired" in first)) return withCheck({ base: from, warnings: [], ...first }, target);
  // MuPDF repairs some damaged files only when it writes them, and the repair drops the changes made
  // before it (pdfjs_poppler-90-0-fuzzed.pdf): the edit is made again on the repaired copy.
  const messages = [...new Set(drainMupdfLog())];
  const repaired = join(target.scratchDir, `${route}-repaired.pdf`);
  await rename(target.output, repaired);
  const second = await editOnce(repaired, target, edit, progress);
  if ("repaired" in second) throw badOutput(target.name, "MuPDF kept repairing it while writing");
  return withCheck(
    { base: repaired, warnings: [damageWarning(target.name, "MuPDF", messages)], ...second },
    target,
  );
}

async function withCheck<T>(
  written: { base: string; warnings: string[] } & ({ result: T } | { error: unknown }),
  target: SaveTarget,
): Promise<Attempt<T>> {
  if (!("result" in written)) return written;
  return { ...written, check: await qpdfVerdict(target.output, target.signal) };
}

/** Opens `from`, edits it and writes the output; an engine error is returned, as the other route may avoid it. */
async function editOnce<T>(
  from: string,
  target: SaveTarget,
  edit: PdfEdit<T>,
  progress: (fraction: number) => void,
): Promise<{ result: T } | { error: unknown } | { repaired: true }> {
  try {
    return await withPdf(from, async (doc) => {
      requireReadablePages(doc, target.name);
      const repairedBefore = doc.wasRepaired();
      const result = edit.edit(doc, progress);
      await save(doc, target.output, edit.saveOptions);
      return !repairedBefore && doc.wasRepaired() ? { repaired: true as const } : { result };
    });
  } catch (error) {
    if (error instanceof JobFailure || target.signal?.aborted) throw error;
    return { error };
  }
}

/** Every page of the tree can be looked up; a loop in it (that /Count hides) cannot be processed. */
function requireReadablePages(doc: PdfDocument, name: string): void {
  try {
    for (let index = 0; index < doc.countPages(); index += 1) doc.findPage(index);
  } catch (error) {
    throw needsRepair(name, error instanceof Error ? error.message : String(error));
  }
}

async function save(doc: PdfDocument, output: string, options: string): Promise<void> {
  const saved = doc.saveToBuffer(options);
  try {
    // Copied out of the WASM heap, which another MuPDF call may grow (and so detach) meanwhile.
    await writeFile(output, Buffer.from(saved.asUint8Array()));
  } finally {
    saved.destroy();
  }
}

/**
 * Neither route gave a sound output. An input that fails the same check is damaged beyond what
 * rewriting mends, so repair is the way on; otherwise the fault is ours.
 */
async function notSaved<T>(target: SaveTarget, purpose: string, attempts: Attempt<T>[]): Promise<unknown> {
  // The last route's outcome first: it says most about what is left wrong.
  const check = attempts.flatMap((attempt) => ("check" in attempt ? [attempt.check] : [])).at(-1);
  const error = attempts.flatMap((attempt) => ("error" in attempt ? [attempt.error] : [])).at(-1);
  if (!(await qpdfCheck(target.source, { signal: target.signal })).ok) {
    const why = check?.problem === undefined ? "" : ` (qpdf: ${check.problem})`;
    return new JobFailure(
      "invalid_input",
      `${target.name} is too damaged to ${purpose}${why}. Run the repair operation on it first, then try again with the repaired file.`,
      { detail: error instanceof Error ? `${error.name}: ${error.message}` : check?.detail, cause: error },
    );
  }
  if (check !== undefined) return badOutput(target.name, "qpdf --check finds errors in it", check.detail);
  return error;
}

/** What `qpdf --check` says of an output. */
interface OutputCheck {
  /** Exit 0, or 3 (warnings only): the project's bar for a PDF output. */
  passed: boolean;
  /**
   * qpdf could not read some page content to its end (a syntax error, an unterminated inline image):
   * viewers stop there too.
   */
  contentDamaged: boolean;
  /** qpdf's first complaint, without the file's path, for the client's message. */
  problem: string | undefined;
  /** qpdf's output, for the logs. */
  detail: string;
}

const contentWarning = /page object \d+ \d+ stream/;

async function qpdfVerdict(path: string, signal: AbortSignal | undefined): Promise<OutputCheck> {
  const outcome = await qpdfCheck(path, { signal });
  const lines = `${outcome.stdout}\n${outcome.stderr}`
    .split("\n")
    .map((line) => line.replaceAll(path, "the file"));
  const complaint =
    lines.find((line) => line.startsWith("ERROR:")) ?? lines.find((line) => line.startsWith("WARNING:"));
  return {
    passed: outcome.ok,
    contentDamaged: outcome.warnings.some((warning) => contentWarning.test(warning)),
    problem: complaint?.replace(/^(ERROR|WARNING): /, "").slice(0, 200),
    detail: lines.join("\n").trim().slice(-2000),
  };
}
