import { catalogue, type Lane } from "./catalogue.js";
import { type JobKind, PIPELINE } from "./operation-ids.js";

export type { Lane } from "./catalogue.js";

/**
 * Each job kind's lane, from the catalogue. A pipeline is heavy: its steps may be, and together they
 * take longer than any light job.
 */
export function laneOf(kind: JobKind): Lane {
  return kind === PIPELINE ? "heavy" : catalogue[kind].lane;
}

/**
 * How many of a queue's jobs a worker process takes at once by default, and at most (`--queues name=N`
 * may lower it). A light job spends a good part of its time storing its outputs and being settled, after
 * its engines gave their slot back, so a light queue takes twice the engine slots: the next job waits at
 * the slot, ready, while the one before it settles. A heavy job's engines take nearly all its time.
 */
export function queueConcurrency(operation: JobKind, processConcurrency: number): number {
  return laneOf(operation) === "light" ? 2 * processConcurrency : processConcurrency;
}
