import type { OperationId } from "@octavo/contracts";

export type RunnerSpec =
  /**
   * A sandbox process: no credentials, a capped heap, native tools in processes of their own under
   * their own limits, and a fresh MuPDF (WebAssembly) instance for every job, whose memory is erased
   * when the job ends. `reuse`: the process then takes the next job. That is safe where the document
   * is decoded only inside MuPDF's memory and in tool processes that exit (the structural operations).
   * Not reused: operations whose JavaScript holds the document's text and images (layout analysis, the
   * Office writers, PDF/A checks), or that decode images in native code inside the process (sharp);
   * garbage no job boundary can wipe, so each of their jobs gets a fresh process, and an end.
   */
  | { runner: "sandbox"; reuse: boolean }
  /** Warm LibreOffice or Chromium, whose own processes parse the file under their own limits. */
  | { runner: "resident" };

/** How every operation runs. An operation missing here, or from its runner's table, does not compile. */
export const operationRunners = {
  merge: { runner: "sandbox", reuse: true },
  split: { runner: "sandbox", reuse: true },
  rotate: { runner: "sandbox", reuse: true },
  protect: { runner: "sandbox", reuse: true },
  unlock: { runner: "sandbox", reuse: true },
  repair: { runner: "sandbox", reuse: true },
  compress: { runner: "sandbox", reuse: false },
  ocr: { runner: "sandbox", reuse: false },
  "pdf-to-pdfa": { runner: "sandbox", reuse: false },
  "pdf-to-word": { runner: "sandbox", reuse: false },
  "pdf-to-powerpoint": { runner: "sandbox", reuse: false },
  "pdf-to-excel": { runner: "sandbox", reuse: false },
  // Text stamps, flattening and metadata: the document stays inside MuPDF, like the structural ones.
  watermark: { runner: "sandbox", reuse: true },
  "page-numbers": { runner: "sandbox", reuse: true },
  flatten: { runner: "sandbox", reuse: true },
  // Reads and writes the XMP packet, the document's own text, in JavaScript.
  metadata: { runner: "sandbox", reuse: false },
  // Page pixels pass through JavaScript, and sharp decodes and encodes images in native code.
  "pdf-to-image": { runner: "sandbox", reuse: false },
  "image-to-pdf": { runner: "sandbox", reuse: false },
  "word-to-pdf": { runner: "resident" },
  "powerpoint-to-pdf": { runner: "resident" },
  "excel-to-pdf": { runner: "resident" },
  "html-to-pdf": { runner: "resident" },
} as const satisfies Record<OperationId, RunnerSpec>;

type Runners = typeof operationRunners;
/** The operations whose engines run in a sandbox process. */
export type SandboxedOperation = {
  [K in OperationId]: Runners[K]["runner"] extends "sandbox" ? K : never;
}[OperationId];
/** The operations of the worker's resident engines. */
export type ResidentOperation = Exclude<OperationId, SandboxedOperation>;

export function isSandboxed(operation: OperationId): operation is SandboxedOperation {
  return operationRunners[operation].runner === "sandbox";
}
