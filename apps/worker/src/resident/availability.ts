import { type OperationId, operationIds } from "@octavo/contracts";
import { findProgram } from "@octavo/engines";

/** Whether a program can be started: a name looked up on PATH, or an absolute path. */
export function programInstalled(program: string): boolean {
  return findProgram(program) !== undefined;
}

// Every PDF input goes through openSource, where qpdf counts the pages beside MuPDF; prlimit caps the
// memory and CPU of every engine process (util-linux, like unshare).
const pdfInput = ["qpdf", "prlimit"] as const;
// Warm LibreOffice: soffice, driven through UNO by Debian's python3 (python3-uno), started without
// network inside `unshare`.
const office = ["soffice", "/usr/bin/python3", "prlimit", "unshare"] as const;

/**
 * The programs each operation starts, besides node and the packages in node_modules (MuPDF.js,
 * sharp, the Office writers). This one table answers two questions: which operations this machine
 * runs (the API's offer and `octavo worker`'s queues), and what `octavo doctor --queues` requires.
 * A program that only improves a result is not listed: PDF to Office OCRs scanned pages when
 * ocrmypdf is there and converts them with a warning (no text) when it is not.
 */
export const operationPrograms: Readonly<Record<OperationId, readonly string[]>> = {
  merge: pdfInput,
  split: pdfInput,
  rotate: pdfInput,
  protect: pdfInput,
  unlock: pdfInput,
  // Ghostscript is repair's last pass; pdfinfo (poppler) is the third parser that checks a repaired file.
  repair: [...pdfInput, "gs", "pdfinfo"],
  compress: [...pdfInput, "gs"],
  // pdftotext (poppler) checks that the PDF/A's text survived.
  "pdf-to-pdfa": [...pdfInput, "gs", "pdftotext"],
  // OCRmyPDF runs Tesseract and rasterises pages with Ghostscript.
  ocr: [...pdfInput, "ocrmypdf", "tesseract", "gs"],
  "pdf-to-word": pdfInput,
  "pdf-to-powerpoint": pdfInput,
  "pdf-to-excel": pdfInput,
  "word-to-pdf": office,
  "powerpoint-to-pdf": office,
  "excel-to-pdf": office,
  "html-to-pdf": ["chromium"],
  "pdf-to-image": pdfInput,
  // Images are decoded by sharp and MuPDF inside the sandbox; the PDF is written by pdf-lib.
  "image-to-pdf": [],
  watermark: pdfInput,
  "page-numbers": pdfInput,
  flatten: pdfInput,
  metadata: pdfInput,
};

/**
 * The operations whose programs are all installed on this machine. The API answers 503 unavailable
 * for the others, instead of accepting jobs no worker could run.
 */
export function installedOperations(): OperationId[] {
  return operationIds.filter((operation) => operationPrograms[operation].every(programInstalled));
}
