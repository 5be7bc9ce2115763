import { join } from "node:path";
import { type PdfDocument, withPdf } from "../mupdf/document.js";
import { displayName, pdfNameLike } from "../names.js";
import { badOutput, runOperation } from "../operation.js";
import { formatRange, type PageRange, parsePageRanges, requireWithin } from "../page-ranges.js";
import { type QpdfOutcome, qpdf } from "../qpdf.js";
import { needsRepair, openSource, type PdfSource, probeSource, qpdfReadAlike } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

export interface RotateOptions {
  /** Clockwise, added to each page's existing rotation. */
  angle: 90 | 180 | 270;
  /** "1-3,5": the pages to rotate; omitted = all pages. */
  pages?: string;
}

interface Rotation {
  outcome: QpdfOutcome;
  /** Each page's rotation before, and in the output (empty when qpdf failed). */
  before: number[];
  after: number[];
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
    const output = join(await freshDir(ctx.workDir, "rotate"), "rotated.pdf");
    const rotateInto = async (source: PdfSource): Promise<Rotation> => {
      const before = await withPdf(source.path, pageRotations);
      const selection = ranges === undefined ? "1-z" : ranges.map(formatRange).join(",");
      const outcome = await qpdf([source.path, output, `--rotate=+${options.angle}:${selection}`], {
        signal: ctx.signal,
      });
      return { outcome, before, after: outcome.ok ? await withPdf(output, pageRotations) : [] };
    };
    const finish = (source: PdfSource, { before, after }: Rotation): EngineResult => {
      checkRotations(name, before, after, options.angle, ranges);
      return {
        outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
        engine: "qpdf",
        warnings: source.warnings,
      };
    };

    // Most files: MuPDF's probe, and qpdf's reading checked by the rotation itself.
    const { source: probed, probe } = await probeSource(input);
    if (probed !== undefined && (ranges ?? []).every((range) => range.to <= probed.pages)) {
      const rotation = await rotateInto(probed);
      if (qpdfReadAlike(probed, rotation.outcome, rotation.after.length)) return finish(probed, rotation);
    }
    const source = await openSource(input, scratchDir, ctx.signal, probe);
    if (ranges !== undefined) requireWithin(ranges, source.pages, name);
    const rotation = await rotateInto(source);
    if (!rotation.outcome.ok) throw needsRepair(name, rotation.outcome.stderr);
    return finish(source, rotation);
  });
}

/** Throws unless the output has the input's pages, each turned by `angle` where the ranges say. */
function checkRotations(
  name: string,
  before: number[],
  after: number[],
  angle: number,
  ranges: PageRange[] | undefined,
): void {
  const rotated = (page: number): boolean =>
    ranges === undefined || ranges.some((range) => page >= range.from && page <= range.to);
  const expected = before.map((turn, index) => normalise(turn + (rotated(index + 1) ? angle : 0)));
  if (after.length !== expected.length) {
    throw badOutput(name, `it has ${after.length} pages instead of ${expected.length}`);
  }
  const wrong = expected.findIndex((turn, index) => after[index] !== turn);
  if (wrong !== -1) {
    throw badOutput(name, `page ${wrong + 1} has rotation ${after[wrong]} instead of ${expected[wrong]}`);
  }
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
