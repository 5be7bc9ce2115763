/**
 * The ids of the operations: the spec's 16, in the order of its operation table, then the additions
 * beyond it (issue 19's image, stamp and document operations). They double as BullMQ queue names, so
 * they hold neither "/" nor ":".
 */
export const operationIds = [
  "merge",
  "split",
  "rotate",
  "compress",
  "repair",
  "ocr",
  "word-to-pdf",
  "powerpoint-to-pdf",
  "excel-to-pdf",
  "html-to-pdf",
  "pdf-to-word",
  "pdf-to-powerpoint",
  "pdf-to-excel",
  "pdf-to-pdfa",
  "protect",
  "unlock",
  "pdf-to-image",
  "image-to-pdf",
  "watermark",
  "page-numbers",
  "flatten",
  "metadata",
] as const;

export type OperationId = (typeof operationIds)[number];

export function isOperationId(value: string): value is OperationId {
  return (operationIds as readonly string[]).includes(value);
}

/**
 * A POST /v1/pipeline job: several operations run as one job. Its queue's name, and its Job's
 * `operation`; the steps are in the job's options.
 */
export const PIPELINE = "pipeline";

/** What a job runs, each with its own queue: one operation, or a pipeline of them. */
export const jobKinds = [...operationIds, PIPELINE] as const;

export type JobKind = (typeof jobKinds)[number];

export function isJobKind(value: string): value is JobKind {
  return (jobKinds as readonly string[]).includes(value);
}
