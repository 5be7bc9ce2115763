import type { OperationId } from "@octavo/contracts";

/**
 * Light jobs take milliseconds, heavy ones seconds to minutes. Each lane has engine slots of its own,
 * so a backlog of one kind never holds up the other.
 */
export type Lane = "light" | "heavy";

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
  | { runner: "sandbox"; reuse: boolean; lane: Lane }
  /** Warm LibreOffice or Chromium, whose own processes parse the file under their own limits. */
  | { runner: "resident"; lane: Lane };

/** How every operation runs. An operation missing here, or from its runner's table, does not compile. */
export const operationRunners = {
  merge: { runner: "sandbox", reuse: true, lane: "light" },
  split: { runner: "sandbox", reuse: true, lane: "light" },
  rotate: { runner: "sandbox", reuse: true, lane: "light" },
  protect: { runner: "sandbox", reuse: true, lane: "light" },
  unlock: { runner: "sandbox", reuse: true, lane: "light" },
  repair: { runner: "sandbox", reuse: true, lane: "light" },
  compress: { runner: "sandbox", reuse: false, lane: "heavy" },
  ocr: { runner: "sandbox", reuse: false, lane: "heavy" },
  "pdf-to-pdfa": { runner: "sandbox", reuse: false, lane: "heavy" },
  "pdf-to-word": { runner: "sandbox", reuse: false, lane: "heavy" },
  "pdf-to-powerpoint": { runner: "sandbox", reuse: false, lane: "heavy" },
  "pdf-to-excel": { runner: "sandbox", reuse: false, lane: "heavy" },
  "word-to-pdf": { runner: "resident", lane: "heavy" },
  "powerpoint-to-pdf": { runner: "resident", lane: "heavy" },
  "excel-to-pdf": { runner: "resident", lane: "heavy" },
  "html-to-pdf": { runner: "resident", lane: "heavy" },
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
