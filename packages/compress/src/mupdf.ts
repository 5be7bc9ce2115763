import type * as Mupdf from "mupdf";

export type MupdfModule = typeof Mupdf;
export type PdfDocument = Mupdf.PDFDocument;

let loading: Promise<MupdfModule> | undefined;

/** Loads the MuPDF WASM module on first use, so importing this package stays cheap. */
export function loadMupdf(): Promise<MupdfModule> {
  loading ??= import("mupdf");
  return loading;
}

/** Opens bytes as a PDF (never as an image or HTML, which MuPDF would also accept). */
export async function openPdfBytes(bytes: Uint8Array): Promise<PdfDocument> {
  const mupdf = await loadMupdf();
  return new mupdf.PDFDocument(bytes);
}
