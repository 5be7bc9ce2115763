import {
  type EngineContext,
  type EngineInput,
  type EngineResult,
  type PageRange,
  parsePageRanges,
  requireWithin,
} from "@octavo/engines";
import { editPdf } from "./edit-pdf.js";
import { type StampStyle, stampDocument } from "./stamp-document.js";

export type { StampStyle } from "./stamp-document.js";
export type { StampPosition } from "./stamp-layout.js";

export interface StampJob {
  /** Names the output directory, e.g. "watermark". */
  operation: string;
  /** What is drawn, for messages: "the watermark", "the page numbers". */
  label: string;
  /** "1-3,5": the pages to stamp; omitted = all pages. */
  pages: string | undefined;
  style: StampStyle;
  /** The text for the `ordinal`-th (0-based) of the `count` selected pages. */
  textOf(ordinal: number, count: number): string;
}

/**
 * Draws a line of real text (embedded fonts with a ToUnicode map, so it can be selected) over the chosen
 * pages of a PDF, upright as the reader sees each page and inside its visible box; everything else in
 * the file stays as it was. A file whose page content is damaged, so that the text might not be drawn or
 * the result would fail `qpdf --check`, is stamped on a copy whose content MuPDF has rewritten.
 */
export async function stampPdf(input: EngineInput, job: StampJob, ctx: EngineContext): Promise<EngineResult> {
  // A malformed page list fails the job before any file is read.
  const ranges = job.pages === undefined ? undefined : parsePageRanges(job.pages, "pages");
  return editPdf(input, ctx, job.operation, (source, name) => {
    if (ranges !== undefined) requireWithin(ranges, source.pages, name);
    const pages = selectedPages(ranges, source.pages);
    const texts = pages.map((_, ordinal) => job.textOf(ordinal, pages.length));
    return {
      purpose: `add ${job.label} to it`,
      // No garbage collection: MuPDF 1.28's is not safe on a document edited in the same session.
      saveOptions: "compress",
      needsReadableContent: true,
      edit: (doc, progress) =>
        stampDocument(doc, { pages, texts, style: job.style, signal: ctx.signal, onProgress: progress }),
      warnings: (shrunk, contentRewritten) => [
        ...(contentRewritten
          ? [
              `${name} has damaged page content; MuPDF rewrote the page content so that ${job.label} could be drawn over it.`,
            ]
          : []),
        ...shrinkWarning(shrunk, job.style.fontSize),
      ],
    };
  });
}

/** 0-based indexes of the chosen pages, in page order, each once. */
function selectedPages(ranges: PageRange[] | undefined, pages: number): number[] {
  const all = Array.from({ length: pages }, (_, index) => index);
  if (ranges === undefined) return all;
  return all.filter((index) => ranges.some((range) => index + 1 >= range.from && index + 1 <= range.to));
}

function shrinkWarning(sizes: number[], asked: number): string[] {
  if (sizes.length === 0) return [];
  const smallest = Math.round(Math.min(...sizes) * 10) / 10;
  const pages = sizes.length === 1 ? "1 page" : `${sizes.length} pages`;
  return [
    `The text did not fit at ${asked} pt on ${pages}, so it was drawn smaller there (down to ${smallest} pt).`,
  ];
}
