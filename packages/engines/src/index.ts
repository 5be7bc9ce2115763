import { loadMupdf } from "@octavo/mupdf";

export { doctor, type EngineComponent, type Probe, probeProgram } from "./doctor.js";
export { detailOf, type JobErrorCode, JobFailure, passwordRequired, tailDetailOf } from "./errors.js";
export { limits } from "./limits.js";
export { marksNothing } from "./mupdf/blank.js";
export { forgetBorrowed } from "./mupdf/borrowed.js";
export { type PdfDocument, withPdf } from "./mupdf/document.js";
export { pageTextChars } from "./mupdf/text.js";
export { damageWarning, displayName, pdfNameLike, safeFileName, stemOf, UniqueNames } from "./names.js";
export { badOutput, reportProgress, runOperation } from "./operation.js";
export { merge } from "./operations/merge.js";
export { type ProtectOptions, protect } from "./operations/protect.js";
export { repair } from "./operations/repair.js";
export { type RotateOptions, rotate } from "./operations/rotate.js";
export { type SplitOptions, split } from "./operations/split.js";
export { type UnlockOptions, unlock } from "./operations/unlock.js";
export { type PageRange, parsePageRanges, requireWithin, selectPages } from "./page-ranges.js";
export { findProgram } from "./programs.js";
export { qpdf, qpdfCheck, qpdfPageCount } from "./qpdf.js";
export type { Assessment } from "./repair/assess.js";
export { type Acceptance, type Candidate, RepairCascade } from "./repair/cascade.js";
export { type Rewrite, rewriteWithMupdf, rewriteWithQpdf } from "./rewrite.js";
export {
  onProgramRun,
  type ProgramRun,
  type RunOptions,
  type RunResult,
  type RunSecrets,
  run,
  runDefaults,
} from "./run.js";
export { looksLikeText } from "./sniff.js";
export { needsRepair, notAPdf, openSource, type PdfSource, probeSource } from "./source.js";
export type { EngineContext, EngineInput, EngineOutput, EngineResult } from "./types.js";
export { pdfContentType } from "./types.js";
export { freshDir } from "./workspace.js";

/** Loads the WASM engines ahead of the first job (a warm sandbox calls this while it waits). */
export async function preloadEngines(): Promise<void> {
  await loadMupdf();
}
