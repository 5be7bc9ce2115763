import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

function onPath(program: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false; // not in this directory
    }
  });
}

/**
 * Operations beyond the structural six whose programs are installed on this machine. The API
 * answers 503 unavailable for the others, instead of accepting jobs no worker could run.
 */
export function toolOperationsInstalled(): string[] {
  const operations: string[] = [];
  if (onPath("soffice")) operations.push("word-to-pdf", "powerpoint-to-pdf", "excel-to-pdf");
  if (onPath("chromium")) operations.push("html-to-pdf");
  if (onPath("gs")) operations.push("compress", "pdf-to-pdfa");
  if (onPath("ocrmypdf")) operations.push("ocr");
  // PDF to Office needs only MuPDF.js and the writers; scanned pages are OCRed when ocrmypdf is there,
  // and converted with a warning that they have no text when it is not.
  operations.push("pdf-to-word", "pdf-to-powerpoint", "pdf-to-excel");
  return operations;
}
