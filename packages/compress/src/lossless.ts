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
  const results: { path: string; route: string; bytes: number }[] = [];
  const viaMupdf = join(scratchDir, `${tag}-mupdf.pdf`);
  if (await saveWithMupdf(input, viaMupdf)) {
    results.push({ path: viaMupdf, route: "MuPDF", bytes: (await stat(viaMupdf)).size });
  }
  signal?.throwIfAborted();
  const viaQpdf = join(scratchDir, `${tag}-qpdf.pdf`);
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
  if (outcome.ok) {
    const both = join(scratchDir, `${tag}-qpdf-mupdf.pdf`);
    const saved = await saveWithMupdf(viaQpdf, both);
    const path = saved ? both : viaQpdf;
    results.push({ path, route: saved ? "qpdf + MuPDF" : "qpdf", bytes: (await stat(path)).size });
  }
  results.sort((a, b) => a.bytes - b.bytes);
  const best = results[0];
  return best === undefined ? undefined : { path: best.path, route: best.route };
}

/**
 * MuPDF rewrite of a freshly opened file: objects deduplicated, unused ones dropped, uncompressed streams
 * compressed, object streams. Never on a document edited in the same session: MuPDF 1.28's garbage
 * collection turned edited image streams into plain dictionaries (see images.ts). `sanitize` also rewrites
 * every content stream (compress.ts uses it to repair a file that fails `qpdf --check`).
 */
export async function saveWithMupdf(
  input: string,
  output: string,
  options: { sanitize: boolean } = { sanitize: false },
): Promise<boolean> {
  let doc: Awaited<ReturnType<typeof openPdfBytes>> | undefined;
  try {
    doc = await openPdfBytes(await readFile(input));
    const buffer = doc.saveToBuffer(
      options.sanitize
        ? "garbage=deduplicate,compress,objstms,sanitize"
        : "garbage=deduplicate,compress,objstms",
    );
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
