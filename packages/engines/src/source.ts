import { join } from "node:path";
import bytes from "bytes";
import { JobFailure, passwordRequired } from "./errors.js";
import { limits } from "./limits.js";
import { countPages, withPdf } from "./mupdf/document.js";
import { type MupdfProbe, probeWithMupdf } from "./mupdf/probe.js";
import { damageWarning, displayName } from "./names.js";
import { type QpdfOutcome, qpdfIsEncrypted, qpdfPageCount, qpdfWantsPassword } from "./qpdf.js";
import { rewriteWithMupdf, rewriteWithQpdf } from "./rewrite.js";
import { sniffFile } from "./sniff.js";
import type { EngineInput } from "./types.js";

/** A PDF that qpdf and MuPDF both read with the same page count: the input itself or a rebuilt copy. */
export interface PdfSource {
  path: string;
  pages: number;
  warnings: string[];
}

/**
 * The preflight of every operation but unlock: refuses what is not a PDF, encrypted files and protected
 * wrappers, and rebuilds a damaged file when that is what it takes for both parsers to agree on it.
 */
export async function openSource(
  input: EngineInput,
  scratchDir: string,
  signal?: AbortSignal,
  /** `probeSource`'s probe of this input, when it was taken already. */
  probed?: MupdfProbe,
): Promise<PdfSource> {
  const name = displayName(input.name);
  const probe = probed ?? (await probeInput(input));
  const counted = await qpdfPageCount(input.path, { signal });
  if (qpdfWantsPassword(counted) || (!probe.opened && (await qpdfIsEncrypted(input.path, { signal })))) {
    throw passwordRequired(name);
  }
  const qpdfPages = usablePages(counted.pages);
  if (probe.opened && qpdfPages !== undefined && probe.pages === qpdfPages) {
    // Both parsers agree; qpdf's warnings (exit 3) mean it reconstructs the file on the fly.
    const warnings = counted.warnings.length > 0 ? [damageWarning(name, "qpdf", counted.warnings)] : [];
    return { path: input.path, pages: qpdfPages, warnings };
  }
  const rebuilt = await rebuild(input.path, scratchDir, { qpdfPages, signal });
  if (rebuilt === undefined && (counted.pages ?? 0) > limits.maxPages)
    throw tooManyPages(name, counted.pages ?? 0);
  if (rebuilt === undefined) throw probe.opened || counted.ok ? needsRepair(name) : beyondRepair(name);
  const claim = (counted.pages ?? 0) > limits.maxPages ? [`its page tree claims ${counted.pages} pages`] : [];
  return { ...rebuilt, warnings: [damageWarning(name, rebuilt.engine, [...claim, ...rebuilt.messages])] };
}

/**
 * The MuPDF half of `openSource`: the input itself when MuPDF reads it whole and it is neither encrypted
 * nor protected, else undefined (then call `openSource` with the probe, which it does not take again).
 * It is for an operation that is one qpdf run keeping every page: when that run ends clean and MuPDF reads the probe's page count in its output
 * (`qpdfReadAlike`), qpdf read the file as MuPDF did, which is all openSource's own qpdf count would
 * have shown, and that process (about a fifth of a light job's CPU) is saved.
 */
export async function probeSource(
  input: EngineInput,
): Promise<{ source: PdfSource | undefined; probe: MupdfProbe }> {
  const probe = await probeInput(input);
  const pages = probe.opened && !probe.needsPassword ? usablePages(probe.pages) : undefined;
  return { source: pages === undefined ? undefined : { path: input.path, pages, warnings: [] }, probe };
}

/** The sniff and MuPDF's probe: refuses what is not a PDF, encrypted files and protected wrappers. */
async function probeInput(input: EngineInput): Promise<MupdfProbe> {
  const probe = await probePdf(input);
  refuseProtected(probe, displayName(input.name));
  return probe;
}

/**
 * The sniff and MuPDF's probe of a file that may be encrypted (repair and unlock look at that
 * themselves): refuses what is not a PDF and what is over the page and size limits.
 */
export async function probePdf(input: EngineInput): Promise<MupdfProbe> {
  const name = displayName(input.name);
  const sniffed = await sniffFile(input.path);
  if (!sniffed.pdf) throw notAPdf(name, sniffed.looksLike);
  const probe = await probeWithMupdf(input.path);
  refuseOverLimits(probe, name);
  return probe;
}

/** True when a qpdf run on a probed source ended without a warning and kept the pages MuPDF counted. */
export function qpdfReadAlike(
  source: PdfSource,
  outcome: QpdfOutcome,
  outputPages: number | undefined,
): boolean {
  return outcome.exitCode === 0 && outputPages === source.pages;
}

export function notAPdf(name: string, looksLike: string): JobFailure {
  return new JobFailure("invalid_input", `${name} is not a PDF: ${looksLike}.`);
}

export function beyondRepair(name: string): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} starts like a PDF but no page could be read from it; it is damaged beyond repair or not a real PDF.`,
  );
}

function tooManyPages(name: string, pages: number): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} claims ${count(pages)} pages; files with more than ${count(limits.maxPages)} pages are not processed. Split it into smaller files first.`,
  );
}

/**
 * The cheap limits, checked on the probe before any engine works on the file: the object count, the page
 * count, the declared size of its largest image and any stream that inflates beyond its limit (a
 * decompression bomb is refused as one, not taken for damage). A page count above the limit is taken at its word
 * only when the file has an object for each page; one that claims more pages than it has objects lies
 * (`/Count 9999999999` over one page), which is damage that a rebuild of the page tree mends.
 */
export function refuseOverLimits(probe: MupdfProbe, name: string): void {
  if (!probe.opened) return;
  const { objects, pages, largestImage, inflatesBeyond } = probe.declared;
  if (objects > limits.maxObjects) {
    throw new JobFailure(
      "invalid_input",
      `${name} has ${count(objects)} objects; files with more than ${count(limits.maxObjects)} objects are not processed.`,
    );
  }
  if (pages !== undefined && pages > limits.maxPages && pages <= objects) throw tooManyPages(name, pages);
  if (largestImage !== undefined && largestImage.bytes > limits.maxImageBytes) {
    const { width, height, bytes: decoded } = largestImage;
    throw new JobFailure(
      "invalid_input",
      `${name} holds an image of ${count(width)} × ${count(height)} pixels, ${byteSize(decoded)} decoded; images larger than ${byteSize(limits.maxImageBytes)} decoded are not processed.`,
    );
  }
  if (inflatesBeyond !== undefined) {
    throw new JobFailure(
      "invalid_input",
      `${name} holds a compressed stream (object ${inflatesBeyond.object}) that inflates to more than ${byteSize(inflatesBeyond.limitBytes)}, a decompression bomb; streams larger than that are not processed.`,
    );
  }
}

const count = (value: number) => value.toLocaleString("en-US");
const byteSize = (size: number) => bytes.format(size, { decimalPlaces: 1, unitSeparator: " " });

/** For a file the engines read only partly (e.g. a looping page tree): repair may still recover it. */
export function needsRepair(name: string, detail?: string): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} is too damaged to process directly (its page tree cannot be read consistently). Run the repair operation on it first, then try again with the repaired file.`,
    { detail },
  );
}

export function refuseProtected(probe: MupdfProbe, name: string): void {
  if (!probe.opened) return;
  if (probe.encryption !== undefined) throw passwordRequired(name);
  if (probe.encryptedPayload !== undefined) throw protectedPayload(name, probe.encryptedPayload);
}

export function protectedPayload(name: string, kind: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `${name} is a protected wrapper (${kind}): its real content is an encrypted attachment that only the issuing rights-management service can open, so this protection cannot be removed here. Open it in an application that supports ${kind} and save an unprotected copy.`,
  );
}

function usablePages(pages: number | undefined): number | undefined {
  return pages !== undefined && pages >= 1 && pages <= limits.maxPages ? pages : undefined;
}

interface Rebuilt {
  path: string;
  pages: number;
  engine: string;
  messages: string[];
}

/** Tries qpdf, then MuPDF; keeps the copy with the most pages that the other parser confirms. */
async function rebuild(
  source: string,
  scratchDir: string,
  options: { qpdfPages: number | undefined; signal: AbortSignal | undefined },
): Promise<Rebuilt | undefined> {
  const viaQpdf = join(scratchDir, "rebuilt-qpdf.pdf");
  const qpdfRewrite = await rewriteWithQpdf(source, viaQpdf, {
    rebuildPageTree: options.qpdfPages === undefined,
    signal: options.signal,
  });
  const qpdfPages = qpdfRewrite.ok ? await agreedPages(viaQpdf, options.signal) : undefined;

  const viaMupdf = join(scratchDir, "rebuilt-mupdf.pdf");
  const mupdfRewrite = await rewriteWithMupdf(source, viaMupdf, { sanitize: false });
  const mupdfPages = mupdfRewrite.ok ? await agreedPages(viaMupdf, options.signal) : undefined;

  if (qpdfPages !== undefined && qpdfPages >= (mupdfPages ?? 0)) {
    return { path: viaQpdf, pages: qpdfPages, engine: "qpdf", messages: qpdfRewrite.messages };
  }
  if (mupdfPages !== undefined) {
    return { path: viaMupdf, pages: mupdfPages, engine: "MuPDF", messages: mupdfRewrite.messages };
  }
  return undefined;
}

/** The page count when qpdf and MuPDF (walking the tree) both read the file and agree on it. */
async function agreedPages(path: string, signal: AbortSignal | undefined): Promise<number | undefined> {
  const counted = await qpdfPageCount(path, { signal });
  const seen = await pagesSeenByMupdf(path);
  return seen !== undefined && seen === usablePages(counted.pages) ? seen : undefined;
}

async function pagesSeenByMupdf(path: string): Promise<number | undefined> {
  try {
    return usablePages(await withPdf(path, countPages));
  } catch {
    // The rewrite does not open in the second parser: it is not a usable source.
    return undefined;
  }
}
