import { copyFile, mkdtemp } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  JobFailure,
  openSource,
  pdfNameLike,
  runOperation,
} from "@octavo/engines";
import { finishPdfA } from "./finish.js";
import { ghostscriptPdfA, type Interpreter } from "./ghostscript.js";
import { isPdfALevel, type PdfALevel } from "./levels.js";
import { forEachDictionary, nameOf, withPdf } from "./mupdf.js";
import { listSome } from "./names.js";
import { type Preparation, preparationWarnings, prepareForGhostscript } from "./prepare.js";
import { type CharCounts, charCounts, extractText, textRecall, total } from "./text.js";
import { restoreToUnicode } from "./tounicode.js";
import { checkDocument, missingGlyphRule } from "./validate.js";

export interface PdfAOptions {
  /** "1", "2" or "3" for PDF/A-1b, -2b, -3b. */
  level: PdfALevel;
}

/**
 * Text recall (share of the input's extractable characters found again in the output) at or above which
 * an output is accepted as it is. Below it the other Ghostscript interpreter is tried and the better
 * output kept; see docs/engines.md ("PDF/A") for the figures behind these numbers.
 */
export const goodRecall = 0.98;
/** Below this the output has lost most of its text: the job fails rather than deliver an archive nobody can search. */
export const minimumRecall = 0.5;

const pdfContentType = "application/pdf";

/** One Ghostscript run, finished and checked. */
interface Attempt {
  interpreter: Interpreter;
  path: string;
  problems: string[];
  pages: number;
  /** Undefined when the input has no text to compare. */
  recall: number | undefined;
  /** The input's ToUnicode maps were put back (see tounicode.ts). */
  toUnicodeRestored?: boolean;
}

/**
 * PDF → PDF/A-1b, -2b or -3b: input check (MuPDF), preparation (MuPDF: forbidden actions, attachments,
 * annotations and, for level 1, transparency), Ghostscript pdfwrite in PDF/A mode with an sRGB output
 * intent, finishing fixes (MuPDF), then our own validation and a text check. Ghostscript 10.0 runs with
 * its new PDF interpreter first and, when that output fails validation or loses text, once more with the
 * legacy one. Only an output that passes validation is returned.
 */
export async function toPdfA(
  input: EngineInput,
  options: PdfAOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  const level = String((options as { level?: unknown } | undefined)?.level ?? "2");
  if (!isPdfALevel(level)) {
    throw new JobFailure("invalid_input", `Unknown PDF/A level "${level}"; use 1, 2 or 3.`);
  }
  return runOperation(ctx, name, async (scratchDir) => {
    // The preflight every operation shares: refuses non-PDFs, encrypted files and protected wrappers, and
    // gives a rebuilt copy (with a damage warning) when qpdf and MuPDF disagree on the original.
    const source = await openSource({ ...input, path: resolve(input.path) }, scratchDir, ctx.signal);
    ctx.onProgress?.(0.05);
    const result = await convertIn(scratchDir, resolve(source.path), name, level, source.pages, ctx);
    const outputs = [await deliver(result.path, input.name, ctx.workDir)];
    return { outputs, engine: result.engine, warnings: [...source.warnings, ...result.warnings] };
  });
}

async function convertIn(
  scratchDir: string,
  inputPath: string,
  name: string,
  level: PdfALevel,
  pages: number,
  ctx: EngineContext,
): Promise<{ path: string; engine: string; warnings: string[] }> {
  const warnings: string[] = [];
  const textBefore = extractText(inputPath, scratchDir, ctx.signal).then((text) =>
    text === undefined ? undefined : charCounts(text),
  );
  const unembedded = unembeddedFonts(inputPath).catch(() => []);

  const prepared = join(scratchDir, "prepared.pdf");
  let preparation: Preparation | undefined;
  let ghostscriptInput = prepared;
  try {
    preparation = await prepareForGhostscript(inputPath, prepared, level);
  } catch (error) {
    // MuPDF could not rewrite the file: Ghostscript gets it as it is and validation judges the result
    // (leftover scripts, attachments or transparency make the job fail). A valid output is still returned,
    // but with a warning: links and unprinted annotations may be gone, level-1 pages may be rasterised.
    ghostscriptInput = inputPath;
    warnings.push(preparationSkipped(name, level, error));
  }
  ctx.signal?.throwIfAborted();
  ctx.onProgress?.(0.2);
  const before = await textBefore;

  const attempts: Attempt[] = [];
  const interpreters: Interpreter[] = ["pdfi", "legacy"];
  let ghostscriptFailure: JobFailure | undefined;
  for (const [index, interpreter] of interpreters.entries()) {
    const attempt = await tryInterpreter({
      interpreter,
      scratchDir,
      ghostscriptInput,
      level,
      before,
      signal: ctx.signal,
    }).catch((error: unknown) => {
      // A timeout or an abort ends the job; a Ghostscript error leaves the other interpreter to try.
      if (error instanceof JobFailure && error.code === "conversion_failed") {
        ghostscriptFailure ??= error;
        return undefined;
      }
      throw error;
    });
    ctx.onProgress?.(0.2 + (0.75 * (index + 1)) / interpreters.length);
    if (attempt === undefined) continue;
    attempts.push(attempt);
    if (isAcceptable(attempt, pages) && (attempt.recall ?? 1) >= goodRecall) break;
  }

  const chosen = choose(attempts, pages);
  const fonts = await unembedded;
  if (chosen === undefined) throw refusal(name, level, attempts, pages, ghostscriptFailure, fonts);

  if (preparation !== undefined) warnings.push(...preparationWarnings(preparation, name, level));
  if (fonts.length > 0) {
    warnings.push(
      `${name} did not embed ${fonts.length === 1 ? "the font" : "the fonts"} ${listSome(fonts)}; PDF/A requires embedded fonts, so similar fonts were embedded in their place and the text may look slightly different.`,
    );
  }
  if (chosen.recall !== undefined && chosen.recall < goodRecall) {
    warnings.push(
      `Only ${Math.floor(chosen.recall * 100)} % of the text of ${name} can still be extracted from the PDF/A file (some characters of its fonts could not be mapped back to text); the pages look the same.`,
    );
  }
  const engine =
    chosen.interpreter === "legacy" ? "ghostscript (legacy interpreter) + mupdf" : "ghostscript + mupdf";
  return { path: chosen.path, engine, warnings };
}

/** The warning for a conversion that went ahead without the MuPDF preparation (see convertIn). */
export function preparationSkipped(name: string, level: PdfALevel, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  const pictures =
    level === "1"
      ? " and pages with transparency may have been turned into pictures without searchable text"
      : "";
  return `${name} could not be prepared for PDF/A (MuPDF: ${reason.slice(0, 200)}), so it was converted as it is: links and annotations that are not set to print may be missing${pictures}.`;
}

async function tryInterpreter(options: {
  interpreter: Interpreter;
  scratchDir: string;
  ghostscriptInput: string;
  level: PdfALevel;
  before: CharCounts | undefined;
  signal: AbortSignal | undefined;
}): Promise<Attempt> {
  const { interpreter, scratchDir, level } = options;
  const raw = join(scratchDir, `gs-${interpreter}.pdf`);
  const finished = join(scratchDir, `pdfa-${interpreter}.pdf`);
  await ghostscriptPdfA({
    input: options.ghostscriptInput,
    output: raw,
    level,
    scratchDir,
    interpreter,
    signal: options.signal,
  });
  options.signal?.throwIfAborted();
  await finishPdfA(raw, finished, level, options.ghostscriptInput);
  const { problems, pages } = await withPdf(finished, (doc) => ({
    problems: checkDocument(doc, level),
    pages: doc.countPages(),
  })).catch((error: unknown) => ({
    problems: [
      `the output cannot be read as a PDF (${error instanceof Error ? error.message : String(error)})`,
    ],
    pages: 0,
  }));
  const attempt: Attempt = { interpreter, path: finished, problems, pages, recall: undefined };
  const before = options.before;
  if (before === undefined || total(before) === 0) return attempt;
  const recallOf = async (path: string): Promise<number> => {
    const text = await extractText(path, scratchDir, options.signal);
    return text === undefined ? 0 : textRecall(before, charCounts(text));
  };
  attempt.recall = await recallOf(finished);
  if (attempt.recall >= goodRecall || problems.length > 0) return attempt;
  // Text lost while the pages look right: Ghostscript may have rewritten the fonts' ToUnicode maps.
  const restored = join(scratchDir, `pdfa-${interpreter}-tounicode.pdf`);
  if ((await restoreToUnicode(finished, restored, options.ghostscriptInput)) === 0) return attempt;
  const recall = await recallOf(restored);
  const restoredProblems = await withPdf(restored, (doc) => checkDocument(doc, level));
  if (recall > attempt.recall && restoredProblems.length === 0) {
    return { ...attempt, path: restored, recall, toUnicodeRestored: true };
  }
  return attempt;
}

function isAcceptable(attempt: Attempt, pages: number): boolean {
  return attempt.problems.length === 0 && attempt.pages === pages && (attempt.recall ?? 1) >= minimumRecall;
}

/** The valid output that kept the most text; the first interpreter wins ties. */
function choose(attempts: Attempt[], pages: number): Attempt | undefined {
  let best: Attempt | undefined;
  for (const attempt of attempts) {
    if (!isAcceptable(attempt, pages)) continue;
    if (best === undefined || (attempt.recall ?? 1) > (best.recall ?? 1)) best = attempt;
  }
  return best;
}

/** Why no output could be returned, naming the reason the client can act on. */
function refusal(
  name: string,
  level: PdfALevel,
  attempts: Attempt[],
  pages: number,
  ghostscriptFailure: JobFailure | undefined,
  unembedded: string[],
): JobFailure {
  const detail = attempts
    .map(
      (attempt) =>
        `${attempt.interpreter}: pages ${attempt.pages}/${pages}, recall ${attempt.recall ?? "n/a"}, ${attempt.problems.join("; ") || "valid"}`,
    )
    .concat(ghostscriptFailure?.detail ?? [])
    .join("\n");
  const first = attempts[0];
  if (first === undefined) {
    return new JobFailure(
      "conversion_failed",
      `Ghostscript could not convert ${name} to PDF/A-${level}. If the file opens in a PDF viewer, try the repair operation first.`,
      { detail },
    );
  }
  const rightPages = attempts.filter((attempt) => attempt.pages === pages);
  const valid = rightPages.filter((attempt) => attempt.problems.length === 0);
  // A substitute font without the glyphs the text needs: the other attempts only lost the text some other way.
  const lacksGlyphs = (attempt: Attempt) =>
    attempt.problems.some((problem) => problem.startsWith(missingGlyphRule));
  if (rightPages.some(lacksGlyphs) && unembedded.length > 0) {
    const fonts = ` (${listSome(unembedded)})`;
    return new JobFailure(
      "conversion_failed",
      `${name} uses fonts it does not embed${fonts}, and the fonts available to replace them lack characters its text uses, so as PDF/A-${level}b those characters would be drawn wrongly or not at all; no file was made. Embed the fonts when creating the PDF, then convert again.`,
      { detail },
    );
  }
  if (valid.length > 0) {
    const best = Math.max(...valid.map((attempt) => attempt.recall ?? 0));
    return new JobFailure(
      "conversion_failed",
      `${name} would lose most of its text as PDF/A-${level}b (only ${Math.floor(best * 100)} % could still be extracted), so no file was made; its fonts could not be mapped back to text.`,
      { detail },
    );
  }
  const invalid = rightPages[0];
  if (invalid !== undefined) {
    return new JobFailure(
      "conversion_failed",
      `${name} could not be made a valid PDF/A-${level}b file: ${invalid.problems.join("; ")}.`,
      { detail },
    );
  }
  return new JobFailure(
    "conversion_failed",
    `${name} has ${pages} pages, but the PDF/A-${level}b conversion kept ${first.pages}; try the repair operation first.`,
    { detail },
  );
}

/** Names of the fonts the input uses without embedding them (Ghostscript embeds substitutes). */
async function unembeddedFonts(path: string): Promise<string[]> {
  return withPdf(path, (doc) => {
    const names = new Set<string>();
    forEachDictionary(doc, (dict) => {
      if (nameOf(dict.get("Type")) !== "Font") return;
      const subtype = nameOf(dict.get("Subtype"));
      if (subtype === "Type3" || subtype === "Type0") return;
      const descriptor = dict.get("FontDescriptor");
      const embedded =
        descriptor.isDictionary() &&
        ["FontFile", "FontFile2", "FontFile3"].some((key) => !descriptor.get(key).isNull());
      if (!embedded) names.add((nameOf(dict.get("BaseFont")) ?? "unnamed").replace(/^[A-Z]{6}\+/, ""));
    });
    return [...names].sort();
  });
}

async function deliver(
  path: string,
  clientName: string,
  workDir: string,
): Promise<{ path: string; name: string; contentType: string }> {
  const dir = await mkdtemp(join(resolve(workDir), "pdfa-"));
  const output = join(dir, "pdfa.pdf");
  await copyFile(path, output);
  return { path: output, name: pdfNameLike(clientName), contentType: pdfContentType };
}
