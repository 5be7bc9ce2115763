import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";

export type PdfDocument = Mupdf.PDFDocument;

/** Opens bytes as a PDF (never as an image or HTML, which MuPDF would also accept). */
export async function openPdfBytes(bytes: Uint8Array): Promise<PdfDocument> {
  const mupdf = await loadMupdf();
  return new mupdf.PDFDocument(bytes);
}
