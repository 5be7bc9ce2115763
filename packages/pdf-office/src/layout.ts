import { type EngineContext, JobFailure } from "@octavo/engines";
import { analyzeDocument, type Box, type PageLayout } from "@octavo/layout";
import type { Mupdf as mupdf } from "@octavo/mupdf";

export interface PageOptions {
  /** Extract images (Word needs them; PowerPoint renders them into the background instead). */
  images: boolean;
  /** Encode the images' pixels (default true); false gives their boxes only. */
  imageData?: boolean;
  tables: boolean;
}

/** One page's layout; analysing page by page keeps memory flat on long documents. */
export function analyzePage(
  doc: mupdf.PDFDocument,
  index: number,
  options: PageOptions,
  name: string,
): PageLayout {
  let layout: PageLayout | undefined;
  try {
    layout = analyzeDocument(doc, {
      pages: [index],
      images: options.images,
      imageData: options.imageData ?? true,
      tables: options.tables,
    }).pages[0];
  } catch (error) {
    throw new JobFailure(
      "conversion_failed",
      `The layout of page ${index + 1} of ${name} could not be analysed, so it cannot be converted. If the file opens in a PDF viewer, try the repair operation first.`,
      { detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error), cause: error },
    );
  }
  if (layout === undefined) {
    throw new JobFailure("conversion_failed", `Page ${index + 1} of ${name} could not be read.`);
  }
  return layout;
}

/** Progress when every page is analysed and written; writing the file takes the rest. */
export const PAGES_DONE_PROGRESS = 0.9;

/**
 * Calls `visit` for each page in order with its layout (or for `pages`, zero-based, when given),
 * reporting progress from `from` to PAGES_DONE_PROGRESS.
 */
export async function forEachPage(
  pdf: { doc: mupdf.PDFDocument; pages: number },
  options: PageOptions,
  { name, ctx, from, pages }: { name: string; ctx: EngineContext; from: number; pages?: number[] },
  visit: (page: PageLayout) => void | Promise<void>,
): Promise<void> {
  const indexes = pages ?? Array.from({ length: pdf.pages }, (_, index) => index);
  for (const [done, index] of indexes.entries()) {
    ctx.signal?.throwIfAborted();
    await visit(analyzePage(pdf.doc, index, options, name));
    ctx.onProgress?.(from + ((PAGES_DONE_PROGRESS - from) * (done + 1)) / indexes.length);
    // Lets an abort or a progress write through between pages of a long document.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export function boxWidth(box: Box): number {
  return box.x1 - box.x0;
}

export function boxHeight(box: Box): number {
  return box.y1 - box.y0;
}

/** The column of the page that holds most of `box`, or the whole page's width when none does. */
export function columnOf(page: PageLayout, box: Box): Box {
  const centre = (box.x0 + box.x1) / 2;
  const column = page.columns.find((candidate) => candidate.x0 - 2 <= centre && centre <= candidate.x1 + 2);
  return column ?? { x0: page.margins.left, y0: 0, x1: page.width - page.margins.right, y1: page.height };
}
