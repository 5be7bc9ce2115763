import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadMupdf } from "@octavo/mupdf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rewriteWithGhostscript } from "../src/ghostscript.js";
import { ImageCache, recompressImages } from "../src/images.js";
import { imageSettings } from "../src/settings.js";
import { cleanup, corpus, workDir } from "./helpers.js";

const mupdf = await loadMupdf();

/** The stream bytes of every image XObject in the file, in object order. */
async function imageStreams(path: string): Promise<Buffer[]> {
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    const streams: Buffer[] = [];
    for (let num = 1; num < doc.countObjects(); num += 1) {
      const object = doc.newIndirect(num);
      if (!object.isStream() || object.get("Subtype").toString() !== "/Image") continue;
      const raw = object.readRawStream();
      streams.push(Buffer.from(raw.asUint8Array()));
      raw.destroy();
    }
    return streams;
  } finally {
    doc.destroy();
  }
}

describe("the image cache shared by compress's two routes", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await workDir();
  });
  afterEach(() => cleanup(dir));

  // pdfjs_issue7229: two JPEG scans, which Ghostscript passes through (found again by their bytes);
  // rapidocr_text_vertical_words: a Flate image, which Ghostscript re-compresses (found by its samples).
  it.each(["scanned/pdfjs_issue7229.pdf", "scanned/rapidocr_text_vertical_words.pdf"])(
    "re-encodes the images of %s once, and the pass on Ghostscript's rewrite writes the same images as without it",
    async (file) => {
      const setting = imageSettings.recommended;
      const rewritten = join(dir, "gs.pdf");
      const gs = await rewriteWithGhostscript(corpus(file), rewritten, {
        gray: false,
        legacy: false,
        signal: undefined,
        timeoutMs: 60_000,
      });
      expect(gs.ok).toBe(true);

      const cache = new ImageCache();
      const first = await recompressImages(corpus(file), join(dir, "source.pdf"), setting, undefined, cache);
      expect(first.replaced).toBeGreaterThan(0);
      const second = await recompressImages(rewritten, join(dir, "cached.pdf"), setting, undefined, cache);
      expect(cache.hits).toBeGreaterThanOrEqual(second.replaced);
      expect(second.replaced).toBeGreaterThan(0);

      const uncached = await recompressImages(rewritten, join(dir, "uncached.pdf"), setting, undefined);
      expect(second).toEqual(uncached);
      expect(await imageStreams(join(dir, "cached.pdf"))).toEqual(
        await imageStreams(join(dir, "uncached.pdf")),
      );
    },
  );
});
