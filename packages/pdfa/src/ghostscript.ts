import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, run } from "@octavo/engines";
import type { PdfALevel } from "./levels.js";

/** Limits of one Ghostscript run. */
export const ghostscriptLimits = {
  timeoutMs: 300_000,
  memoryBytes: 2 * 1024 ** 3,
} as const;

/**
 * sRGB profiles, in order of preference: icc-profiles-free (zlib licence, ICC v2), then the one Debian's
 * Ghostscript ships. PDF/A-1 needs a v2 profile; both are.
 */
const iccCandidates = ["/usr/share/color/icc/sRGB.icc", "/usr/share/color/icc/ghostscript/srgb.icc"];

export type Interpreter = "pdfi" | "legacy";

export interface GhostscriptRun {
  interpreter: Interpreter;
  durationMs: number;
  /** Ghostscript's complaints (it prints them on stdout), for the logs only. */
  messages: string;
}

export async function findIccProfile(): Promise<string> {
  for (const candidate of iccCandidates) {
    try {
      await access(candidate);
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new JobFailure("conversion_failed", "PDF/A conversion is not available on this server.", {
    detail: `no sRGB ICC profile found (install icc-profiles-free): looked for ${iccCandidates.join(", ")}`,
  });
}

/**
 * The PostScript prologue that gives the output its PDF/A OutputIntent: Ghostscript's PDFA_def.ps without
 * the placeholder Title it would stamp over the document's own, and with N fixed to 3 (sRGB).
 */
function prologue(iccPath: string): string {
  const path = iccPath.replace(/[\\()]/g, (char) => `\\${char}`);
  return `%!
[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark
[{icc_PDFA} << /N 3 >> /PUT pdfmark
[{icc_PDFA} (${path}) (r) file /PUT pdfmark
[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark
[{OutputIntent_PDFA} <<
  /Type /OutputIntent
  /S /GTS_PDFA1
  /DestOutputProfile {icc_PDFA}
  /OutputConditionIdentifier (sRGB IEC61966-2.1)
  /Info (sRGB IEC61966-2.1)
  /RegistryName (http://www.color.org)
>> /PUT pdfmark
[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark
`;
}

/**
 * Ghostscript's pdfwrite in PDF/A mode: embeds every font (substituting missing ones), converts colour to
 * sRGB, writes XMP and the OutputIntent. Always -dSAFER; the only file it may open beyond its arguments is
 * the ICC profile. `legacy` selects the pre-10 PostScript-based PDF interpreter, which keeps the text of
 * some fonts (Arabic TrueType, CJK CID fonts) that 10.0's new interpreter garbles.
 */
export async function ghostscriptPdfA(options: {
  input: string;
  output: string;
  level: PdfALevel;
  scratchDir: string;
  interpreter: Interpreter;
  signal: AbortSignal | undefined;
}): Promise<GhostscriptRun> {
  const iccPath = await findIccProfile();
  const prologuePath = join(options.scratchDir, `pdfa-def-${options.interpreter}.ps`);
  await writeFile(prologuePath, prologue(iccPath));
  const args = [
    `-dPDFA=${options.level}`,
    "-dPDFACompatibilityPolicy=1",
    "-dSAFER",
    `--permit-file-read=${iccPath}`,
    "-dBATCH",
    "-dNOPAUSE",
    "-dNOINTERPOLATE",
    "-sDEVICE=pdfwrite",
    "-sColorConversionStrategy=RGB",
    // pdfwrite otherwise turns pages whose text runs sideways (scans, tables) to "fix" them.
    "-dAutoRotatePages=/None",
    ...(options.interpreter === "legacy" ? ["-dNEWPDF=false"] : []),
    `-sOutputFile=${options.output.replaceAll("%", "%%")}`,
    prologuePath,
    options.input,
  ];
  const result = await run("gs", args, {
    timeoutMs: ghostscriptLimits.timeoutMs,
    memoryBytes: ghostscriptLimits.memoryBytes,
    signal: options.signal,
    cwd: options.scratchDir,
  });
  if (result.aborted) {
    throw new JobFailure("timeout", "The job was stopped before Ghostscript finished.");
  }
  if (result.timedOut) {
    throw new JobFailure(
      "timeout",
      `Ghostscript took longer than ${ghostscriptLimits.timeoutMs / 1000} s on this file and was stopped; try a smaller file.`,
    );
  }
  const messages = `${result.stdout}\n${result.stderr}`.trim();
  if (result.exitCode !== 0) {
    throw new JobFailure("conversion_failed", "Ghostscript could not convert the file to PDF/A.", {
      detail: `gs exit ${result.exitCode ?? result.signal}: ${messages.slice(-4000)}`,
    });
  }
  return { interpreter: options.interpreter, durationMs: result.durationMs, messages };
}
