import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineOutput,
  type EngineResult,
  freshDir,
  JobFailure,
  openSource,
  type PageRange,
  type PdfDocument,
  parsePageRanges,
  reportProgress,
  runOperation,
  selectPages,
  stemOf,
  withPdf,
} from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import {
  encodePixmap,
  formatFacts,
  type ImageEncoding,
  type ImageFormat,
  imageFormats,
} from "./render-encode.js";
import { dpiBounds, type PlannedPage, planRender, totalPixels } from "./render-plan.js";

export interface PdfToImageOptions {
  format: ImageFormat;
  /** 36–600: each image is the page's visible size in inches × dpi pixels. */
  dpi: number;
  /** "1-3,5": the pages to render; omitted = all pages. */
  pages?: string;
  /** 1–100, for jpeg and webp. */
  quality: number;
}

/**
 * One image per selected page, in page order, named `<name>-p<page>.<ext>`: each page drawn by MuPDF
 * with its annotations, at its visible size (CropBox, rotation applied) × dpi / 72 pixels. The job is
 * refused before anything is drawn when it is beyond `imageRenderLimits` (@octavo/contracts).
 */
export async function pdfToImage(
  input: EngineInput,
  options: PdfToImageOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const { encoding, ranges } = checkOptions(options);
    const format = formatFacts(encoding.format);
    const source = await openSource(input, scratchDir, ctx.signal);
    const selected = selectPages(ranges, source.pages, name);
    const outputs = await withPdf(source.path, async (doc) => {
      const plan = planRender(doc, selected, encoding.dpi, name, format.dimensionLimit);
      const target = { dir: await freshDir(ctx.workDir, "pdf-to-image"), stem: stemOf(input.name) };
      return writePages(doc, plan, encoding, target, ctx);
    });
    return { outputs, engine: format.engine, warnings: source.warnings };
  });
}

/** Renders the planned pages one at a time into `target.dir`, reporting progress by the pixels drawn. */
async function writePages(
  doc: PdfDocument,
  plan: PlannedPage[],
  encoding: ImageEncoding,
  target: { dir: string; stem: string },
  ctx: EngineContext,
): Promise<EngineOutput[]> {
  const format = formatFacts(encoding.format);
  const allPixels = totalPixels(plan);
  let donePixels = 0;
  const written: EngineOutput[] = [];
  for (const planned of plan) {
    ctx.signal?.throwIfAborted();
    const fileName = `${target.stem}-p${planned.page}.${format.extension}`;
    const path = join(target.dir, fileName);
    await writeFile(path, await renderPage(doc, planned, encoding));
    written.push({ path, name: fileName, contentType: format.contentType });
    donePixels += planned.width * planned.height;
    reportProgress(ctx, donePixels / allPixels);
  }
  return written;
}

/** Draws one page (with annotations, on white, no alpha) and encodes it; MuPDF's objects are freed at once. */
async function renderPage(
  doc: PdfDocument,
  planned: PlannedPage,
  encoding: ImageEncoding,
): Promise<Uint8Array> {
  const mupdf = await loadMupdf();
  const scale = encoding.dpi / 72;
  let encoded: Promise<Uint8Array>;
  const page = doc.loadPage(planned.page - 1);
  try {
    const pixmap = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      encoded = encodePixmap(pixmap, encoding);
    } finally {
      pixmap.destroy();
    }
  } finally {
    page.destroy();
  }
  return encoded;
}

interface CheckedOptions {
  encoding: ImageEncoding;
  ranges: PageRange[] | undefined;
}

/** The options as the contract states them; anything else fails with invalid_input. */
function checkOptions(options: PdfToImageOptions): CheckedOptions {
  if (!imageFormats.includes(options.format)) {
    throw new JobFailure(
      "invalid_input",
      `The format option "${String(options.format)}" is not supported; use ${imageFormats.join(", ")}.`,
    );
  }
  requireWhole("dpi", options.dpi, dpiBounds.min, dpiBounds.max);
  requireWhole("quality", options.quality, 1, 100);
  return {
    encoding: { format: options.format, dpi: options.dpi, quality: options.quality },
    ranges: options.pages === undefined ? undefined : parsePageRanges(options.pages, "pages"),
  };
}

function requireWhole(option: string, value: number, min: number, max: number): void {
  if (Number.isInteger(value) && value >= min && value <= max) return;
  throw new JobFailure(
    "invalid_input",
    `The ${option} option must be a whole number from ${min} to ${max}; ${String(value)} is not.`,
  );
}
