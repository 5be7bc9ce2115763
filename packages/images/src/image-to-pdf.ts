import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  badOutput,
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  JobFailure,
  type PdfDocument,
  pdfContentType,
  pdfNameLike,
  reportProgress,
  runOperation,
  withPdf,
} from "@octavo/engines";
import { PDFDocument, PDFName, type PDFRef } from "pdf-lib";
import { count } from "./count.js";
import { checkOptions, type ImageToPdfOptions, type Placement, placeImage } from "./image-layout.js";
import { imageCaps } from "./image-limits.js";
import { readImageFile } from "./image-pages.js";
import { ImageWriter } from "./image-xobject.js";

export type { ImageToPdfOptions } from "./image-layout.js";

const maxInputs = 50;
const imageName = PDFName.of("Im0");

/**
 * One PDF with a page per image, in the order sent: every frame of a multi-page TIFF, the first of an
 * animated GIF. JPEG data goes in as it is (DCTDecode, byte for byte), everything else losslessly (Flate,
 * 16-bit kept, alpha as a soft mask); EXIF orientation is applied by the drawing matrix, ICC profiles
 * become ICCBased colour spaces, and CMYK stays CMYK. Written with pdf-lib's low-level objects.
 */
export async function imageToPdf(
  inputs: EngineInput[],
  options: ImageToPdfOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const first = inputs[0];
  return runOperation(ctx, displayName(first?.name ?? ""), async () => {
    if (first === undefined || inputs.length > maxInputs) {
      throw new JobFailure(
        "invalid_input",
        `Send between 1 and ${maxInputs} images; ${inputs.length} were sent.`,
      );
    }
    checkOptions(options);
    const doc = await PDFDocument.create({ updateMetadata: false });
    const { placements, warnings } = await addImagePages(doc, inputs, options, ctx);
    const name = pdfNameLike(first.name);
    const output = join(await freshDir(ctx.workDir, "image-to-pdf"), name);
    await writeFile(output, await savePdf(doc));
    const problem = await withPdf(output, (written) => pageProblem(written, placements));
    if (problem !== undefined) throw badOutput(displayName(first.name), problem);
    return {
      outputs: [{ path: output, name, contentType: pdfContentType }],
      engine: "pdf-lib",
      warnings: [...new Set(warnings)],
    };
  });
}

/** A page for each image of each file, in order; the placements say what size each page was given. */
async function addImagePages(
  doc: PDFDocument,
  inputs: EngineInput[],
  options: ImageToPdfOptions,
  ctx: EngineContext,
): Promise<{ placements: Placement[]; warnings: string[] }> {
  const writer = new ImageWriter(doc);
  const warnings: string[] = [];
  const placements: Placement[] = [];
  for (const [index, input] of inputs.entries()) {
    ctx.signal?.throwIfAborted();
    const name = displayName(input.name);
    const pagesLeft = imageCaps.maxPages - placements.length;
    if (pagesLeft < 1) throw tooManyPages();
    const file = await readImageFile(await readFile(input.path), name, pagesLeft);
    warnings.push(...file.warnings);
    for (const page of file.pages) {
      const placement = placeImage(page.geometry, options);
      drawPage(doc, writer.add(page.image), placement);
      placements.push(placement);
      if (placement.rescaled) warnings.push(rescaledWarning(name));
    }
    reportProgress(ctx, (0.9 * (index + 1)) / inputs.length);
  }
  return { placements, warnings };
}

/** A page of the placement's size whose content draws the image through the placement's matrix. */
function drawPage(doc: PDFDocument, image: PDFRef, placement: Placement): void {
  const page = doc.addPage([placement.pageWidth, placement.pageHeight]);
  page.node.setXObject(imageName, image);
  const matrix = placement.matrix.map(formatNumber).join(" ");
  const content = doc.context.stream(`q ${matrix} cm ${imageName.asString()} Do Q\n`);
  page.node.addContentStream(doc.context.register(content));
}

/** A number for a content stream: at most 4 decimals, no exponent, no "-0". */
function formatNumber(value: number): string {
  const text = value.toFixed(4).replace(/\.?0+$/, "");
  return text === "-0" ? "0" : text;
}

function savePdf(doc: PDFDocument): Promise<Uint8Array> {
  // Classic cross-reference table; no pauses between objects (pdf-lib's default yields every 50, each
  // pause a timer tick); no form to update.
  return doc.save({
    useObjectStreams: false,
    addDefaultPage: false,
    objectsPerTick: Number.POSITIVE_INFINITY,
    updateFieldAppearances: false,
  });
}

/** The written PDF as MuPDF reads it back: what is wrong when a page is missing or not the size it was given. */
function pageProblem(doc: PdfDocument, placements: Placement[]): string | undefined {
  if (doc.countPages() !== placements.length) {
    return `it has ${doc.countPages()} pages instead of ${placements.length}`;
  }
  const close = (a: number, b: number) => Math.abs(a - b) < 0.01;
  for (const [index, placement] of placements.entries()) {
    const page = doc.loadPage(index);
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = page.getBounds();
    page.destroy();
    if (!close(x1 - x0, placement.pageWidth) || !close(y1 - y0, placement.pageHeight)) {
      return `page ${index + 1} is ${x1 - x0} × ${y1 - y0} pt instead of ${placement.pageWidth} × ${placement.pageHeight}`;
    }
  }
  return undefined;
}

function tooManyPages(): JobFailure {
  return new JobFailure(
    "invalid_input",
    `The images make more than ${count(imageCaps.maxPages)} pages; send fewer or smaller files.`,
  );
}

function rescaledWarning(name: string): string {
  return (
    `${name} at its own resolution would make a page outside the sizes PDF allows (3 to 14,400 points a ` +
    "side), so its page was scaled to fit."
  );
}
