import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  badOutput,
  damageWarning,
  JobFailure,
  needsRepair,
  type PdfDocument,
  qpdf,
  qpdfPageCount,
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
  /** Reads the written output back (its page count is checked already); throws badOutput if the edit did not hold. */
  verify?(doc: PdfDocument, result: T): void;
}

export interface SaveTarget {
  /** The file to edit: openSource's path. */
  source: string;
  /** Its page count, which the edit keeps. */
  pages: number;
  /** `qpdf --check` of `source`, started before the edit (startCheck). */
  sourceCheck: RunningCheck;
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
  | { result: T; check: OutputCheck; readBack: Settled }
  | { error: unknown }
);

/** What one edit gave: its result (the output written), an engine error, or MuPDF's repair while writing. */
type Written<T> = { result: T } | { error: unknown } | { repaired: true };

/** How MuPDF's read-back of an output ended: it counts once the output is the one kept. */
type Settled = { ok: true } | { ok: false; error: unknown };

/**
 * `qpdf --check` of a file (with qpdf's page count), in its own process from the moment it starts, beside
 * what runs meanwhile: the edit frame starts the source's as soon as the file is known to be a PDF within
 * the limits. A source it finds nothing wrong with (exit 0, no warning, the page count MuPDF read) needs no
 * more preflight (saveIfClean), and its output is checked by structure only (see outputCheck), whose time
 * does not grow with the content as the full check's does (`node bench/output-check.mjs`). `stop` ends
 * it, so a job that fails first leaves no qpdf running.
 */
export interface RunningCheck {
  verdict: Promise<OutputCheck>;
  stop(): void;
}

export function startCheck(path: string, signal: AbortSignal | undefined): RunningCheck {
  const stopping = new AbortController();
  const verdict = qpdfVerdict(path, signal ? AbortSignal.any([signal, stopping.signal]) : stopping.signal);
  verdict.catch(() => undefined); // awaited once the output is written, if it ever is
  return { verdict, stop: () => stopping.abort() };
}

/**
 * The edit of a file MuPDF read whole (probeSource), made while qpdf still checks it, and kept when qpdf
 * reads the file clean with MuPDF's page count: all that openSource's preflight would have shown (as
 * Rotate's preflight rides on its own qpdf run). Undefined when it does not, or when the output is not
 * sound at once: the output is left behind, and the caller takes openSource and saveChecked.
 */
export async function saveIfClean<T>(target: SaveTarget, edit: PdfEdit<T>): Promise<Saved<T> | undefined> {
  // Asked for when needed, not before: a check stopped meanwhile (a rebuilt source) must not reject unread.
  const cleanSource = async () => isClean(await target.sourceCheck.verdict, target.pages);
  drainMupdfLog();
  let written: Written<T>;
  try {
    written = await editOnce(target.source, target, edit, target.progress);
  } catch (error) {
    // The edit refused the file (a value its form does not take): so it would on the preflight's copy,
    // unless that is another file.
    if (await cleanSource()) throw error;
    return undefined;
  }
  if (!("result" in written)) return undefined;
  const [structured, readBack] = await Promise.all([
    structureKept(target),
    settledReadBack(target, edit, written.result),
  ]);
  if (!(await cleanSource()) || !structured) return undefined;
  if (!readBack.ok) throw readBack.error;
  return { result: written.result, warnings: [], contentRewritten: false };
}

/**
 * Makes the edit and writes it to `target.output`, which must pass `qpdf --check` (see outputCheck). When
 * the edited file fails it, or MuPDF cannot make the edit, the edit is made again on a copy whose content
 * streams MuPDF has rewritten (sanitize: what cannot be decoded is dropped, what was left open is closed).
 * The content is rewritten before the edit, not with it: content appended after an unterminated inline
 * image would be read as part of that image and never drawn.
 */
export async function saveChecked<T>(target: SaveTarget, edit: PdfEdit<T>): Promise<Saved<T>> {
  const inputCheck = target.sourceCheck.verdict;
  const asIs = await attempt(
    target.source,
    "as-is",
    target,
    edit,
    (fraction) => target.progress(fraction / 2),
    inputCheck,
  );
  if ("check" in asIs && asIs.check.passed && !(edit.needsReadableContent && asIs.check.contentDamaged)) {
    return kept(asIs, { result: asIs.result, warnings: asIs.warnings, contentRewritten: false });
  }
  const rewritten = join(target.scratchDir, "content-rewritten.pdf");
  const rewrite = await rewriteWithMupdf(asIs.base, rewritten, { sanitize: true });
  const again: Attempt<T> = rewrite.ok
    ? await attempt(rewritten, "rewritten", target, edit, (fraction) => target.progress(0.5 + fraction / 2))
    : { base: asIs.base, warnings: [], error: new Error(`MuPDF could not rewrite it: ${rewrite.detail}`) };
  if ("check" in again && again.check.passed) {
    const warnings = [...asIs.warnings, ...again.warnings];
    return kept(again, { result: again.result, warnings, contentRewritten: true });
  }
  throw await notSaved(target, edit.purpose, [asIs, again], inputCheck);
}

/** The output an attempt wrote, kept: unless MuPDF's read-back of it failed. */
function kept<T>(attempt: { readBack: Settled }, saved: Saved<T>): Saved<T> {
  if (!attempt.readBack.ok) throw attempt.readBack.error;
  return saved;
}

/** Edits `from` and checks the output; `route` names the copy MuPDF's repair may call for. */
async function attempt<T>(
  from: string,
  route: string,
  target: SaveTarget,
  edit: PdfEdit<T>,
  progress: (fraction: number) => void,
  /** `qpdf --check` of `from`, when it is the input. */
  fromCheck?: Promise<OutputCheck>,
): Promise<Attempt<T>> {
  drainMupdfLog();
  const first = await editOnce(from, target, edit, progress);
  if (!("repaired" in first))
    return withCheck({ base: from, warnings: [], ...first }, target, edit, fromCheck);
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
    edit,
  );
}

/** The written output checked by qpdf, in its own process, while MuPDF reads it back here. */
async function withCheck<T>(
  written: { base: string; warnings: string[] } & ({ result: T } | { error: unknown }),
  target: SaveTarget,
  edit: PdfEdit<T>,
  baseCheck?: Promise<OutputCheck>,
): Promise<Attempt<T>> {
  if (!("result" in written)) return written;
  const [check, readBack] = await Promise.all([
    outputCheck(target, baseCheck),
    settledReadBack(target, edit, written.result),
  ]);
  return { ...written, check, readBack };
}

/** The output as MuPDF reads it: the source's page count, and the edit held (the edit's own verify). */
function settledReadBack<T>(target: SaveTarget, edit: PdfEdit<T>, result: T): Promise<Settled> {
  return withPdf(target.output, (doc) => {
    const pages = doc.countPages();
    if (pages !== target.pages)
      throw badOutput(target.name, `it has ${pages} pages instead of ${target.pages}`);
    edit.verify?.(doc, result);
  }).then(
    (): Settled => ({ ok: true }),
    (error: unknown): Settled => ({ ok: false, error }),
  );
}

/**
 * The output's check: `qpdf --check` in full, unless the file MuPDF edited passed it with nothing to say.
 * Then qpdf's structural read of the output (its xref, trailer and page tree, exit 0 with the page count
 * kept), beside MuPDF's read-back, stands for it: on the corpus, every PDF that passes `qpdf --check`
 * clean came out of MuPDF's rewrite passing it clean too (177 of the 252 MuPDF opens), while one with
 * warnings did not always (`node bench/output-check.mjs`).
 */
async function outputCheck(
  target: SaveTarget,
  baseCheck: Promise<OutputCheck> | undefined,
): Promise<OutputCheck> {
  // Started at once, beside the wait for the base's verdict.
  const structured = baseCheck && structureKept(target);
  structured?.catch(() => undefined); // unread when the base's check was not clean
  if (structured !== undefined && isClean(await baseCheck, target.pages) && (await structured))
    return cleanCheck;
  return qpdfVerdict(target.output, target.signal);
}

/** qpdf reads the output's xref, trailer and page tree without a word, with the source's page count. */
async function structureKept(target: SaveTarget): Promise<boolean> {
  const counted = await qpdfPageCount(target.output, { signal: target.signal });
  return counted.exitCode === 0 && counted.pages === target.pages;
}

/** qpdf found nothing wrong with the file and counts `pages` in it. */
function isClean(verdict: OutputCheck | undefined, pages: number): boolean {
  return verdict?.clean === true && verdict.pages === pages;
}

/** Opens `from`, edits it and writes the output; an engine error is returned, as the other route may avoid it. */
async function editOnce<T>(
  from: string,
  target: SaveTarget,
  edit: PdfEdit<T>,
  progress: (fraction: number) => void,
): Promise<Written<T>> {
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
async function notSaved<T>(
  target: SaveTarget,
  purpose: string,
  attempts: Attempt<T>[],
  inputCheck: Promise<OutputCheck>,
): Promise<unknown> {
  // The last route's outcome first: it says most about what is left wrong.
  const check = attempts.flatMap((attempt) => ("check" in attempt ? [attempt.check] : [])).at(-1);
  const error = attempts.flatMap((attempt) => ("error" in attempt ? [attempt.error] : [])).at(-1);
  if (!(await inputCheck).passed) {
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

/** What `qpdf --check` says of an output (or of the input, for outputCheck). */
export interface OutputCheck {
  /** Exit 0, or 3 (warnings only): the project's bar for a PDF output. */
  passed: boolean;
  /** Exit 0: nothing to say at all. */
  clean: boolean;
  /** qpdf's page count, when it could read one. */
  pages: number | undefined;
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

/** The structural check's verdict on an output (outputCheck). */
const cleanCheck: OutputCheck = {
  passed: true,
  clean: true,
  pages: undefined,
  contentDamaged: false,
  problem: undefined,
  detail: "",
};

async function qpdfVerdict(path: string, signal: AbortSignal | undefined): Promise<OutputCheck> {
  // The page count comes last on stdout, after the check's report.
  const outcome = await qpdf(["--check", "--show-npages", path], { signal });
  const counted = outcome.ok ? /^(\d+)\s*$/m.exec(outcome.stdout.trimEnd().split("\n").at(-1) ?? "") : null;
  const lines = `${outcome.stdout}\n${outcome.stderr}`
    .split("\n")
    .map((line) => line.replaceAll(path, "the file"));
  const complaint =
    lines.find((line) => line.startsWith("ERROR:")) ?? lines.find((line) => line.startsWith("WARNING:"));
  return {
    passed: outcome.ok,
    clean: outcome.exitCode === 0,
    pages: counted?.[1] === undefined ? undefined : Number(counted[1]),
    contentDamaged: outcome.warnings.some((warning) => contentWarning.test(warning)),
    problem: complaint?.replace(/^(ERROR|WARNING): /, "").slice(0, 200),
    detail: lines.join("\n").trim().slice(-2000),
  };
}
