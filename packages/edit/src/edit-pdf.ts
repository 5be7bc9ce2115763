import { join } from "node:path";
import {
  badOutput,
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  openSource,
  type PdfDocument,
  type PdfSource,
  pdfContentType,
  pdfNameLike,
  reportProgress,
  runOperation,
  withPdf,
} from "@octavo/engines";
import { type PdfEdit, saveChecked } from "./save-checked.js";

/** An operation's edit of one PDF, with the checks and warnings that go with it. */
export interface PdfOperation<T> extends PdfEdit<T> {
  /** Reads the written output back (its page count is checked already); throws badOutput if the edit did not hold. */
  verify?(doc: PdfDocument, result: T): void;
  /** What the client should know about the edit. */
  warnings(result: T, contentRewritten: boolean): string[];
}

/**
 * The frame of every operation of this package: the shared preflight, the checked save into a fresh
 * directory named after `operation`, a read-back of the output, and the result named after the input.
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
    const source = await openSource(input, scratchDir, ctx.signal);
    reportProgress(ctx, 0.1);
    const edit = plan(source, name);
    const output = join(await freshDir(ctx.workDir, operation), `${operation}.pdf`);
    const saved = await saveChecked(
      {
        source: source.path,
        output,
        scratchDir,
        name,
        signal: ctx.signal,
        progress: (fraction) => reportProgress(ctx, 0.1 + fraction * 0.8),
      },
      edit,
    );
    await withPdf(output, (doc) => {
      const pages = doc.countPages();
      if (pages !== source.pages) throw badOutput(name, `it has ${pages} pages instead of ${source.pages}`);
      edit.verify?.(doc, saved.result);
    });
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: "mupdf",
      warnings: [
        ...source.warnings,
        ...saved.warnings,
        ...edit.warnings(saved.result, saved.contentRewritten),
      ],
    };
  });
}
