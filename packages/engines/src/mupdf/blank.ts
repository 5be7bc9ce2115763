import { loadMupdf, renewMupdf } from "@octavo/mupdf";
import { openPdf } from "./document.js";

/** Pages looked at: a document with nothing on its first pages but something later is rare enough. */
const pagesLooked = 50;
/** Pages are drawn at this scale (18 dpi): a 6 pt glyph still darkens a pixel or two. */
const drawScale = 0.25;
/** A grey sample darker than this is a mark; paper-white backgrounds and white text stay above it. */
const markBelow = 250;

/**
 * True when none of the first pages of the PDF marks anything: each is drawn small in grey, and no
 * pixel is darker than near-white. A converter's output like that means the document converted to
 * nothing, which the client should hear about. Drawing sees whatever shows (text, paths, images,
 * shadings) without the bookkeeping a custom device's image callbacks need (see `forgetBorrowed`).
 * Throws when MuPDF cannot read the file; after a trap in its WebAssembly, the process's instance is
 * renewed first, so that the next document finds it sound.
 */
export async function marksNothing(path: string): Promise<boolean> {
  try {
    return await scan(path);
  } catch (error) {
    // WebAssembly.RuntimeError ("memory access out of bounds"): the instance's memory is unusable.
    if (error instanceof Error && error.name === "RuntimeError") await renewMupdf();
    throw error;
  }
}

async function scan(path: string): Promise<boolean> {
  const mupdf = await loadMupdf();
  const doc = await openPdf(path);
  try {
    const pages = Math.min(doc.countPages(), pagesLooked);
    for (let index = 0; index < pages; index += 1) {
      const page = doc.loadPage(index);
      try {
        const pixmap = page.toPixmap(
          mupdf.Matrix.scale(drawScale, drawScale),
          mupdf.ColorSpace.DeviceGray,
          false,
        );
        try {
          if (pixmap.getPixels().some((sample) => sample < markBelow)) return false;
        } finally {
          pixmap.destroy();
        }
      } finally {
        page.destroy();
      }
    }
    return true;
  } finally {
    doc.destroy();
  }
}
