import { imageRenderLimits } from "@octavo/contracts/limits";
import { JobFailure, type PdfDocument } from "@octavo/engines";
import { count } from "./count.js";

/** The dpi option's bounds: below 36 text is unreadable, above 600 pages outgrow every use but print. */
export const dpiBounds = { min: 36, max: 600 } as const;

export interface PlannedPage {
  /** 1-based. */
  page: number;
  width: number;
  height: number;
}

/** The format's own size limit (the WebP bitstream stores 14-bit sizes; JPEG 16-bit ones). */
export interface DimensionLimit {
  format: string;
  maxSide: number;
}

/**
 * Each selected page's size in pixels at `dpi`, from its visible box (CropBox, rotation applied, as MuPDF
 * bounds it), refusing the job before anything is drawn when it is beyond the contract's
 * imageRenderLimits (which the API description quotes). Why those numbers hold:
 * - maxPixelsPerPage: MuPDF draws a page whole, 3 bytes a pixel, so 100 million pixels are 300 MB of
 *   WebAssembly memory, plus up to about as much again for the encoder's output and its copy in
 *   JavaScript: well inside a 2 GB sandbox (and MuPDF's 2 GB WebAssembly memory), and enough for an A2
 *   sheet at 600 dpi (70 million pixels).
 * - maxTotalPixels: measured on the corpus at 150 dpi on one core, drawing takes 7–25 ms per million
 *   pixels and encoding 25–40 (MuPDF's PNG) or about 14 (sharp's JPEG), so 1.5 billion pixels are a
 *   few minutes at most, inside the 5-minute job timeout; as PNG, text pages come to 0.1–0.2 bytes a
 *   pixel, 150–300 MB in all (A4 at 150 dpi is 2.2 million pixels a page: about 690 pages).
 * - maxPages: a bound on the number of files one job returns, whatever their size.
 */
export function planRender(
  doc: PdfDocument,
  selected: number[],
  dpi: number,
  fileName: string,
  dimensionLimit: DimensionLimit | undefined,
): PlannedPage[] {
  if (selected.length > imageRenderLimits.maxPages) throw tooManyPages(selected);
  const boxes = selected.map((page) => ({ page, size: visibleSize(doc, page) }));
  const plan = boxes.map(({ page, size }) => ({ page, ...pixelSize(size, dpi) }));
  for (const planned of plan) {
    refuseEmpty(planned, fileName);
    refuseLargePage(planned, dpi, fileName, () => fittingDpi(boxes, dpi, pageFits(planned.page)));
    if (dimensionLimit !== undefined) refuseWideSide(planned, dpi, fileName, dimensionLimit);
  }
  const total = totalPixels(plan);
  if (total > imageRenderLimits.maxTotalPixels) {
    const fits = fittingDpi(boxes, dpi, (sizes) => totalPixels(sizes) <= imageRenderLimits.maxTotalPixels);
    throw new JobFailure(
      "invalid_input",
      `The ${count(plan.length)} selected page${plan.length === 1 ? "" : "s"} of ${fileName} come to ${count(total)} pixels at ${dpi} dpi; at most ${count(imageRenderLimits.maxTotalPixels)} pixels are rendered per job. Select fewer pages${lowerDpiHint(fits)}.`,
    );
  }
  return plan;
}

interface PageSize {
  /** Points, as the page shows: CropBox with rotation applied. */
  width: number;
  height: number;
}

function visibleSize(doc: PdfDocument, pageNumber: number): PageSize {
  const page = doc.loadPage(pageNumber - 1);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    return { width: x1 - x0, height: y1 - y0 };
  } finally {
    page.destroy();
  }
}

/**
 * Within this of a whole pixel, a side such as 612 × 150 / 72 is that pixel, not a float error over it
 * (MuPDF's fz_round_rect allows the same).
 */
const floatSlack = 0.001;

/** MuPDF's own rounding of a drawn page (fz_round_rect): a partly covered pixel counts. */
function pixelSize(size: PageSize, dpi: number): { width: number; height: number } {
  const scale = dpi / 72;
  const side = (points: number) => Math.max(0, Math.ceil(points * scale - floatSlack));
  return { width: side(size.width), height: side(size.height) };
}

export function totalPixels(plan: { width: number; height: number }[]): number {
  return plan.reduce((sum, { width, height }) => sum + width * height, 0);
}

function tooManyPages(selected: number[]): JobFailure {
  const { maxPages } = imageRenderLimits;
  const first = selected[0] ?? 1;
  const firstBatch = `${first}-${selected[maxPages - 1] ?? first}`;
  return new JobFailure(
    "invalid_input",
    `${count(selected.length)} pages are selected; at most ${count(maxPages)} pages are rendered per job. Select fewer pages (for example ${firstBatch}) and render the rest in another job.`,
  );
}

function refuseEmpty(planned: PlannedPage, fileName: string): void {
  if (planned.width >= 1 && planned.height >= 1) return;
  throw new JobFailure(
    "invalid_input",
    `Page ${planned.page} of ${fileName} has no visible area (its page box is empty), so it cannot be rendered. Leave it out of the pages option.`,
  );
}

function refuseLargePage(
  planned: PlannedPage,
  dpi: number,
  fileName: string,
  fittingDpiOf: () => number | undefined,
): void {
  const pixels = planned.width * planned.height;
  if (pixels <= imageRenderLimits.maxPixelsPerPage) return;
  throw new JobFailure(
    "invalid_input",
    `Page ${planned.page} of ${fileName} would be ${count(planned.width)} × ${count(planned.height)} = ${count(pixels)} pixels at ${dpi} dpi; a page may have at most ${count(imageRenderLimits.maxPixelsPerPage)} pixels. Use a lower dpi${fitsNote(fittingDpiOf())} or leave page ${planned.page} out of the selection (fewer pages).`,
  );
}

function refuseWideSide(planned: PlannedPage, dpi: number, fileName: string, limit: DimensionLimit): void {
  const side = Math.max(planned.width, planned.height);
  if (side <= limit.maxSide) return;
  throw new JobFailure(
    "invalid_input",
    `Page ${planned.page} of ${fileName} would be ${count(planned.width)} × ${count(planned.height)} pixels at ${dpi} dpi; ${limit.format} images can be at most ${count(limit.maxSide)} pixels wide or high. Use a lower dpi, another format, or leave page ${planned.page} out of the selection.`,
  );
}

function pageFits(page: number): (plan: PlannedPage[]) => boolean {
  return (plan) =>
    plan.every(
      (planned) =>
        planned.page !== page || planned.width * planned.height <= imageRenderLimits.maxPixelsPerPage,
    );
}

/** The highest whole dpi below `dpi` (not below the minimum) at which `fits` holds, or undefined. */
function fittingDpi(
  boxes: { page: number; size: PageSize }[],
  dpi: number,
  fits: (plan: PlannedPage[]) => boolean,
): number | undefined {
  const fitsAt = (candidate: number) =>
    fits(boxes.map(({ page, size }) => ({ page, ...pixelSize(size, candidate) })));
  if (!fitsAt(dpiBounds.min)) return undefined;
  // Pixels only grow with the dpi: a binary search finds the last dpi that fits.
  let low: number = dpiBounds.min;
  let high = dpi - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fitsAt(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** " or use a lower dpi (120 or lower fits)" when some dpi fits, else nothing. */
function lowerDpiHint(fits: number | undefined): string {
  return fits === undefined ? "" : ` or use a lower dpi${fitsNote(fits)}`;
}

/** " (120 or lower fits)" when some dpi fits, else nothing. */
function fitsNote(fits: number | undefined): string {
  return fits === undefined ? "" : ` (${fits} or lower fits)`;
}
