import { watermark } from "@octavo/edit";
import { type EngineContext, type EngineInput, probeSource } from "@octavo/engines";
import { testModeStamp } from "./stamp.js";

/**
 * The stamp on every page: real text (found by text extraction and search), opaque (PDF/A-1 allows no
 * transparency, and an input of PDF to PDF/A is stamped), upright at the top of each page's visible area.
 */
const stampOptions = {
  text: testModeStamp,
  fontSize: 12,
  color: "#C00000",
  opacity: 1,
  rotation: 0,
  position: "top-center",
} as const;

/** Stamps every page of the PDF; returns the stamped copy's path. Warnings are the stamp's, not the client's. */
export async function markPdf(input: EngineInput, ctx: EngineContext): Promise<string> {
  const result = await watermark(input, stampOptions, ctx);
  const [output] = result.outputs;
  if (output === undefined) throw new Error("the stamp wrote no file");
  return output.path;
}

/** The PDF's pages as MuPDF reads them; undefined for what it cannot count (not a PDF, encrypted, damaged). */
export async function pagesOf(input: EngineInput): Promise<number | undefined> {
  try {
    return (await probeSource(input)).source?.pages;
  } catch {
    return undefined; // the job's own engine says what is wrong with it
  }
}
