/** PDF/A-1b, -2b or -3b, as the service's `level` option names them. */
export type PdfALevel = "1" | "2" | "3";

export const pdfaLevels: readonly PdfALevel[] = ["1", "2", "3"];

/** The pdfaid:part value the XMP metadata must carry. */
export function partOf(level: PdfALevel): string {
  return level;
}

export function isPdfALevel(value: unknown): value is PdfALevel {
  return value === "1" || value === "2" || value === "3";
}
