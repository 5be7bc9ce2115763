import { readFile } from "node:fs/promises";
import type { Mupdf } from "@octavo/mupdf";
import { currentMupdf, loadMupdf } from "@octavo/mupdf";

/** Backgrounds are rendered at this resolution: sharp on a screen, small enough for a deck. */
export const backgroundDpi = 150;

export interface Background {
  data: Uint8Array;
  mime: "image/png" | "image/jpeg";
}

/**
 * Renders each page's graphics without its text, so the text can sit on top as editable text boxes and
 * not be seen twice. Works on a private copy of the PDF: a redaction over the whole page removes the text
 * only (images and line art stay), then the page is rendered.
 */
export class BackgroundRenderer {
  private constructor(private readonly doc: Mupdf.PDFDocument) {}

  static async open(path: string): Promise<BackgroundRenderer> {
    const mupdf = await loadMupdf();
    return new BackgroundRenderer(new mupdf.PDFDocument(await readFile(path)));
  }

  /** undefined when nothing but text is on the page (the render is blank). */
  render(index: number): Background | undefined {
    const mupdf = currentMupdf();
    const page = this.doc.loadPage(index);
    let pixmap: Mupdf.Pixmap | undefined;
    try {
      const bounds = page.getBounds();
      const redaction = page.createAnnotation("Redact");
      redaction.setRect([bounds[0] - 10, bounds[1] - 10, bounds[2] + 10, bounds[3] + 10]);
      page.applyRedactions(
        false,
        mupdf.PDFPage.REDACT_IMAGE_NONE,
        mupdf.PDFPage.REDACT_LINE_ART_NONE,
        mupdf.PDFPage.REDACT_TEXT_REMOVE,
      );
      const scale = backgroundDpi / 72;
      pixmap = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceRGB, false, true);
      if (isBlank(pixmap)) return undefined;
      return smallerEncoding(pixmap);
    } finally {
      pixmap?.destroy();
      page.destroy();
    }
  }

  close(): void {
    this.doc.destroy();
  }
}

/** PNG keeps line art crisp; JPEG is far smaller for photographs. The smaller one wins, PNG when close. */
function smallerEncoding(pixmap: Mupdf.Pixmap): Background {
  const png = pixmap.asPNG();
  if (png.length < 150_000) return { data: png, mime: "image/png" };
  const jpeg = pixmap.asJPEG(85);
  return jpeg.length * 1.5 < png.length
    ? { data: jpeg, mime: "image/jpeg" }
    : { data: png, mime: "image/png" };
}

/** Every sampled pixel near white: a page whose only content was its text. */
function isBlank(pixmap: Mupdf.Pixmap): boolean {
  const pixels = pixmap.getPixels();
  const channels = Math.max(1, pixmap.getNumberOfComponents());
  const step = channels * 7;
  for (let offset = 0; offset + channels <= pixels.length; offset += step) {
    for (let channel = 0; channel < Math.min(3, channels); channel += 1) {
      if ((pixels[offset + channel] ?? 255) < 245) return false;
    }
  }
  return true;
}
