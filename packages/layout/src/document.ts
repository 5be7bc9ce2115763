import type { Mupdf as mupdf } from "@octavo/mupdf";
import { type AnalyzeOptions, analyzePage } from "./page.js";
import type { DocumentLayout, PageLayout } from "./types.js";

export interface AnalyzeDocumentOptions extends AnalyzeOptions {
  /** Zero-based page indexes to analyse; all pages when absent. */
  pages?: number[];
}

/** Lays out the chosen pages of a document, one page at a time so memory stays flat. */
export function analyzeDocument(
  doc: mupdf.PDFDocument | mupdf.Document,
  options: AnalyzeDocumentOptions = {},
): DocumentLayout {
  const count = doc.countPages();
  const indexes = options.pages ?? Array.from({ length: count }, (_, i) => i);
  const pages: PageLayout[] = [];
  for (const index of indexes) {
    if (index < 0 || index >= count) throw new RangeError(`page ${index} is outside 0..${count - 1}`);
    const page = doc.loadPage(index);
    try {
      pages.push(analyzePage(page, index, options));
    } finally {
      page.destroy();
    }
  }
  return { pages };
}
