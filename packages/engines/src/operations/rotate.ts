import { join } from "node:path";
import { type PdfDocument, withPdf } from "../mupdf/document.js";
import { displayName, pdfNameLike } from "../names.js";
import { badOutput, runOperation } from "../operation.js";
import { formatRange, parsePageRanges, requireWithin } from "../page-ranges.js";
import { qpdf } from "../qpdf.js";
import { needsRepair, openSource } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

export interface RotateOptions {
  /** Clockwise, added to each page's existing rotation. */
  angle: 90 | 180 | 270;
  /** "1-3,5": the pages to rotate; omitted = all pages. */
  pages?: string;
}

/** Adds `angle` to the /Rotate of the chosen pages; the page content is not touched (qpdf, lossless). */
export async function rotate(
  input: EngineInput,
  options: RotateOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const ranges = options.pages === undefined ? undefined : parsePageRanges(options.pages, "pages");
    const source = await openSource(input, scratchDir, ctx.signal);
    if (ranges !== undefined) requireWithin(ranges, source.pages, name);
    const before = await withPdf(source.path, pageRotations);
    const output = join(await freshDir(ctx.workDir, "rotate"), "rotated.pdf");
    const selection = ranges === undefined ? "1-z" : ranges.map(formatRange).join(",");
    const outcome = await qpdf([source.path, output, `--rotate=+${options.angle}:${selection}`], {
      signal: ctx.signal,
    });
    if (!outcome.ok) throw needsRepair(name, outcome.stderr);

    const rotated = (page: number): boolean =>
      ranges === undefined || ranges.some((range) => page >= range.from && page <= range.to);
    const expected = before.map((angle, index) =>
      normalise(angle + (rotated(index + 1) ? options.angle : 0)),
    );
    const after = await withPdf(output, pageRotations);
    if (after.length !== expected.length) {
      throw badOutput(name, `it has ${after.length} pages instead of ${expected.length}`);
    }
    const wrong = expected.findIndex((angle, index) => after[index] !== angle);
    if (wrong !== -1) {
      throw badOutput(name, `page ${wrong + 1} has rotation ${after[wrong]} instead of ${expected[wrong]}`);
    }
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: "qpdf",
      warnings: source.warnings,
    };
  });
}

/** Each page's effective /Rotate (inherited from the page tree when the page has none), 0..270. */
function pageRotations(doc: PdfDocument): number[] {
  const rotations: number[] = [];
  for (let index = 0; index < doc.countPages(); index += 1) {
    const value = doc.findPage(index).getInheritable("Rotate");
    rotations.push(normalise(value.isNumber() ? value.asNumber() : 0));
  }
  return rotations;
}

function normalise(angle: number): number {
  return (((Math.round(angle / 90) * 90) % 360) + 360) % 360;
}
