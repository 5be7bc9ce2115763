import { type Catalogue, catalogue } from "./catalogue.js";

/** An operation's id: a key of the catalogue, and the name of the operation's queue. */
export type OperationId = keyof Catalogue;

/** The spec's 16, in the order of its operation table, then the additions beyond it. */
export const operationIds = Object.keys(catalogue) as readonly OperationId[];

/** A table with a value for every operation, e.g. `perOperation((id) => catalogue[id].output)`. */
export function perOperation<T>(valueFor: (id: OperationId) => T): Readonly<Record<OperationId, T>> {
  return Object.fromEntries(operationIds.map((id) => [id, valueFor(id)])) as Record<OperationId, T>;
}

export function isOperationId(value: string): value is OperationId {
  return Object.hasOwn(catalogue, value);
}

/**
 * A POST /v1/pipeline job: several operations run as one job. Its queue's name, and its Job's
 * `operation`; the steps are in the job's options.
 */
export const PIPELINE = "pipeline";

/** What a job runs, each with its own queue: one operation, or a pipeline of them. */
export type JobKind = OperationId | typeof PIPELINE;

export const jobKinds: readonly JobKind[] = [...operationIds, PIPELINE];

export function isJobKind(value: string): value is JobKind {
  return value === PIPELINE || isOperationId(value);
}
