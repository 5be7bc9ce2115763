/**
 * The ids of the 16 operations. They double as BullMQ queue names, so they hold neither "/" nor ":".
 * The order is the order of the spec's operation table.
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
] as const;

export type OperationId = (typeof operationIds)[number];

export function isOperationId(value: string): value is OperationId {
  return (operationIds as readonly string[]).includes(value);
}
