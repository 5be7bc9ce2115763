import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  openSource,
  type PdfSource,
  pdfContentType,
  pdfNameLike,
  probeSource,
  reportProgress,
  runOperation,
} from "@octavo/engines";
import {
  type PdfEdit,
  type RunningCheck,
  type Saved,
  type SaveTarget,
  saveChecked,
  saveIfClean,
  startCheck,
} from "./save-checked.js";

/** An operation's edit of one PDF, with the warnings that go with it. */
export interface PdfOperation<T> extends PdfEdit<T> {
  /** What the client should know about the edit. */
  warnings(result: T, contentRewritten: boolean): string[];
}

/**
 * The frame of every operation of this package: the shared preflight, the checked save (with MuPDF's
 * read-back) into a fresh directory named after `operation`, and the result named after the input.
 * `plan` makes the edit once the source is open and its page count known.
 */
export function editPdf<T>(
  input: EngineInput,
  ctx: EngineContext,
  operation: string,
  plan: (source: PdfSource, name: string) => PdfOperation<T>,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const { source: whole, probe } = await probeSource(input);
    // A PDF within the limits: qpdf checks it from here on, beside the edit.
    const inputCheck = startCheck(input.path, ctx.signal);
    let sourceCheck = inputCheck;
    const frame = { ctx, operation, scratchDir, name };
    try {
      // MuPDF read the file whole: the edit is made at once, kept if qpdf reads the file as MuPDF did. A
      // plan that refuses the file (a page range past its end) is made again on openSource's copy.
      const early = whole && planned(plan, whole, name);
      if (whole !== undefined && early !== undefined) {
        const target = await saveTarget(frame, whole, inputCheck);
        const saved = await saveIfClean(target, early);
        if (saved !== undefined) return resultOf(input, whole, target.output, early, saved);
      }
      const source = await openSource(input, scratchDir, ctx.signal, probe);
      if (source.path !== input.path) {
        // The edit is made on a rebuilt copy: that is the file to check.
        inputCheck.stop();
        sourceCheck = startCheck(source.path, ctx.signal);
      }
      reportProgress(ctx, 0.1);
      const target = await saveTarget(frame, source, sourceCheck);
      const edit = plan(source, name);
      return resultOf(input, source, target.output, edit, await saveChecked(target, edit));
    } finally {
      inputCheck.stop();
      sourceCheck.stop();
    }
  });
}

/** The plan for `source`, or undefined when it refuses it. */
function planned<T>(
  plan: (source: PdfSource, name: string) => PdfOperation<T>,
  source: PdfSource,
  name: string,
): PdfOperation<T> | undefined {
  try {
    return plan(source, name);
  } catch {
    return undefined;
  }
}

/** Where an edit of `source` is written, in a fresh directory named after the operation. */
async function saveTarget(
  frame: { ctx: EngineContext; operation: string; scratchDir: string; name: string },
  source: PdfSource,
  sourceCheck: RunningCheck,
): Promise<SaveTarget> {
  const { ctx, operation } = frame;
  return {
    source: source.path,
    pages: source.pages,
    sourceCheck,
    output: join(await freshDir(ctx.workDir, operation), `${operation}.pdf`),
    scratchDir: frame.scratchDir,
    name: frame.name,
    signal: ctx.signal,
    progress: (fraction) => reportProgress(ctx, 0.1 + fraction * 0.8),
  };
}

/** The output named after the input, with what the client should know. */
function resultOf<T>(
  input: EngineInput,
  source: PdfSource,
  output: string,
  edit: PdfOperation<T>,
  saved: Saved<T>,
): EngineResult {
  return {
    outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
    engine: "mupdf",
    warnings: [...source.warnings, ...saved.warnings, ...edit.warnings(saved.result, saved.contentRewritten)],
  };
}
