import { rename } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, passwordRequired } from "../errors.js";
import { limits } from "../limits.js";
import { displayName, pdfNameLike } from "../names.js";
import { reportProgress, runOperation } from "../operation.js";
import { qpdfIsEncrypted, qpdfPageCount } from "../qpdf.js";
import { type Candidate, RepairCascade } from "../repair/cascade.js";
import { rewriteWithGhostscript, rewriteWithMupdf, rewriteWithQpdf } from "../rewrite.js";
import { beyondRepair, probePdf, refuseProtected } from "../source.js";
import { type EngineContext, type EngineInput, type EngineResult, pdfContentType } from "../types.js";
import { freshDir } from "../workspace.js";

/**
 * Rebuilds a damaged PDF: qpdf first, then MuPDF, then Ghostscript while pages are still missing. Every
 * candidate must pass `qpdf --check`, open in MuPDF and poppler with the same page count and have no
 * bookmark loop; the one with the most pages (and no lost text) wins.
 */
export async function repair(
  input: EngineInput,
  _options: Readonly<Record<string, never>>,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const probe = await probePdf(input);
    refuseProtected(probe, name);
    if (!probe.opened && (await qpdfIsEncrypted(input.path, { signal: ctx.signal })))
      throw passwordRequired(name);
    const counted = await qpdfPageCount(input.path, { signal: ctx.signal });
    const claimed = Math.max(
      counted.pages !== undefined && counted.pages <= limits.maxPages ? counted.pages : 0,
      probe.opened ? (probe.pages ?? 0) : 0,
    );
    const cascade = new RepairCascade(scratchDir, ctx.signal);
    const source = input.path;
    await cascade.attempt("qpdf", (out) =>
      rewriteWithQpdf(source, out, { rebuildPageTree: false, signal: ctx.signal }),
    );
    if (!cascade.hasAtLeast(Math.max(claimed, 1))) {
      await cascade.attempt("qpdf (page tree rebuilt)", (out) =>
        rewriteWithQpdf(source, out, { rebuildPageTree: true, signal: ctx.signal }),
      );
    }
    reportProgress(ctx, 0.3);
    await cascade.attempt("MuPDF", (out) => rewriteWithMupdf(source, out, { sanitize: false }));
    reportProgress(ctx, 0.6);
    if (!cascade.hasAtLeast(Math.max(claimed, 1))) {
      // Ghostscript draws a blank page for anything; trust it only if a parser saw pages or it found text.
      await cascade.attempt(
        "Ghostscript",
        (out) => rewriteWithGhostscript(source, out, { signal: ctx.signal }),
        (assessment) => claimed > 0 || assessment.textChars > 0,
      );
    }
    const best = cascade.best();
    if (best === undefined) throw unrepairable(name, claimed > 0, cascade);
    const output = join(await freshDir(ctx.workDir, "repair"), "repaired.pdf");
    await rename(best.path, output);
    return {
      outputs: [{ path: output, name: pdfNameLike(input.name), contentType: pdfContentType }],
      engine: best.engine,
      warnings: repairWarnings(name, best, claimed),
    };
  });
}

function repairWarnings(name: string, best: Candidate, claimed: number): string[] {
  const pages = best.assessment.pages ?? 0;
  const warnings = [
    `${name} was rebuilt by ${best.engine}; ${pages} page${pages === 1 ? "" : "s"} recovered.`,
  ];
  if (claimed > pages) warnings.push(`The file claims ${claimed} pages; only ${pages} could be recovered.`);
  return warnings;
}

function unrepairable(name: string, sawPages: boolean, cascade: RepairCascade): JobFailure {
  const tried = [
    ...cascade.failures,
    ...cascade.candidates.map(
      (candidate) => `${candidate.engine}: ${candidate.assessment.problem ?? "rejected"}`,
    ),
  ].join("\n");
  if (!sawPages) return new JobFailure("invalid_input", beyondRepair(name).message, { detail: tried });
  return new JobFailure(
    "invalid_input",
    `${name} is damaged beyond repair: no engine could rebuild it into a PDF that passes the checks.`,
    { detail: tried },
  );
}
