import type { JobKind } from "./operation-ids.js";

/**
 * Light jobs take milliseconds to a second, heavy ones seconds to minutes. A worker gives each lane engine
 * slots of its own (a light queue takes twice as many jobs at once), so a backlog of one kind never holds
 * up the other; the back-pressure estimates use a lane's typical run time until an operation has history.
 */
export type Lane = "light" | "heavy";

/** A pipeline is heavy: its steps may be, and together they take longer than any light job. */
export const operationLanes: Readonly<Record<JobKind, Lane>> = {
  merge: "light",
  split: "light",
  rotate: "light",
  protect: "light",
  unlock: "light",
  repair: "light",
  compress: "heavy",
  ocr: "heavy",
  "pdf-to-pdfa": "heavy",
  "pdf-to-word": "heavy",
  "pdf-to-powerpoint": "heavy",
  "pdf-to-excel": "heavy",
  "word-to-pdf": "heavy",
  "powerpoint-to-pdf": "heavy",
  "excel-to-pdf": "heavy",
  "html-to-pdf": "heavy",
  "pdf-to-image": "heavy",
  "image-to-pdf": "heavy",
  watermark: "light",
  "page-numbers": "light",
  flatten: "light",
  metadata: "light",
  pipeline: "heavy",
};

/**
 * How many of a queue's jobs a worker process takes at once by default, and at most (`--queues name=N`
 * may lower it). A light job spends a good part of its time storing its outputs and being settled, after
 * its engines gave their slot back, so a light queue takes twice the engine slots: the next job waits at
 * the slot, ready, while the one before it settles. A heavy job's engines take nearly all its time.
 */
export function queueConcurrency(operation: JobKind, processConcurrency: number): number {
  return operationLanes[operation] === "light" ? 2 * processConcurrency : processConcurrency;
}
