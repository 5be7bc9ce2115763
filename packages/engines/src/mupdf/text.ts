import { limits } from "../limits.js";
import type { PdfDocument } from "./document.js";

/**
 * Estimated count of non-blank text characters in the document, from an even sample of pages. Used to
 * spot a rewrite that silently lost text (qpdf did on an encrypted, damaged file).
 */
export function estimateTextChars(doc: PdfDocument, pages: number, signal?: AbortSignal): number {
  const sample = samplePages(pages, limits.textSamplePages);
  if (sample.length === 0) return 0;
  let chars = 0;
  for (const index of sample) {
    signal?.throwIfAborted();
    chars += pageTextChars(doc, index);
  }
  return Math.round((chars * pages) / sample.length);
}

/** The non-blank text characters MuPDF finds on one page (0-based); 0 when its content cannot be parsed. */
export function pageTextChars(doc: PdfDocument, index: number): number {
  let page: ReturnType<PdfDocument["loadPage"]> | undefined;
  let text: ReturnType<ReturnType<PdfDocument["loadPage"]>["toStructuredText"]> | undefined;
  try {
    page = doc.loadPage(index);
    text = page.toStructuredText("");
    return text.asText().replace(/\s+/g, "").length;
  } catch {
    // A page whose content cannot be parsed has no readable text; that is what we are measuring.
    return 0;
  } finally {
    text?.destroy();
    page?.destroy();
  }
}

function samplePages(pages: number, max: number): number[] {
  if (pages <= max) return Array.from({ length: pages }, (_, index) => index);
  return Array.from({ length: max }, (_, index) => Math.floor((index * pages) / max));
}
