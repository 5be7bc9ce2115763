import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openPdfBytes } from "./mupdf.js";
import { qpdf } from "./tools.js";

/**
 * The lossless pass. Two routes, the smaller wins (docs/engines.md, "Compress"):
 * - qpdf (object streams, Flate recompressed at level 9) then MuPDF (duplicate objects merged, unused
 *   dropped): smallest on 8 of 10 files;
 * - MuPDF alone: qpdf's `--recompress-flate` drops PNG predictors and made two files 3–43 % larger.
 * Returns the path of the smaller result, or undefined when neither route produced a file.
 */
export async function losslessPass(
  input: string,
  scratchDir: string,
  tag: string,
  signal: AbortSignal | undefined,
): Promise<{ path: string; route: string } | undefined> {
  // qpdf works in its own process while MuPDF rewrites on this thread.
  const [viaMupdf, viaQpdf] = await Promise.all([
    mupdfRoute(input, join(scratchDir, `${tag}-mupdf.pdf`)),
    qpdfRoute(input, join(scratchDir, `${tag}-qpdf.pdf`), join(scratchDir, `${tag}-qpdf-mupdf.pdf`), signal),
  ]);
  const results = [viaMupdf, viaQpdf].filter((result) => result !== undefined);
  results.sort((a, b) => a.bytes - b.bytes);
  const best = results[0];
  return best === undefined ? undefined : { path: best.path, route: best.route };
}

type LosslessResult = { path: string; route: string; bytes: number };

async function mupdfRoute(input: string, output: string): Promise<LosslessResult | undefined> {
  if (!(await saveWithMupdf(input, output))) return undefined;
  return { path: output, route: "MuPDF", bytes: (await stat(output)).size };
}

async function qpdfRoute(
  input: string,
  viaQpdf: string,
  both: string,
  signal: AbortSignal | undefined,
): Promise<LosslessResult | undefined> {
  const outcome = await qpdf(
    [
      "--object-streams=generate",
      "--compress-streams=y",
      "--recompress-flate",
      "--compression-level=9",
      "--",
      input,
      viaQpdf,
    ],
    signal,
  );
  if (!outcome.ok) return undefined;
  const saved = await saveWithMupdf(viaQpdf, both);
  const path = saved ? both : viaQpdf;
  return { path, route: saved ? "qpdf + MuPDF" : "qpdf", bytes: (await stat(path)).size };
}

/**
 * MuPDF rewrite of a freshly opened file: objects deduplicated, unused ones dropped, uncompressed streams
 * compressed, object streams. Never on a document edited in the same session: MuPDF 1.28's garbage
 * collection turned edited image streams into plain dictionaries (see images.ts).
 */
export async function saveWithMupdf(input: string, output: string): Promise<boolean> {
  let doc: Awaited<ReturnType<typeof openPdfBytes>> | undefined;
  try {
    doc = await openPdfBytes(await readFile(input));
    const buffer = doc.saveToBuffer("garbage=deduplicate,compress,objstms");
    try {
      // Copied out of the WASM heap, which another MuPDF call may grow (and so detach) meanwhile.
      await writeFile(output, Buffer.from(buffer.asUint8Array()));
    } finally {
      buffer.destroy();
    }
    return true;
  } catch {
    // A file MuPDF cannot rewrite simply has no MuPDF route; the other route or the input remains.
    return false;
  } finally {
    doc?.destroy();
  }
}
