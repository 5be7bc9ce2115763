import { loadMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";
import { openPdf } from "./document.js";

/** Pages looked at: a document with nothing on its first pages but something later is rare enough. */
const pagesLooked = 50;

/**
 * True when none of the first pages of the PDF marks anything: no glyph but spaces, no image or shading,
 * no path in a colour other than white. A converter's output like that means the document converted to
 * nothing, which the client should hear about.
 */
export async function marksNothing(path: string): Promise<boolean> {
  const mupdf = await loadMupdf();
  const doc = await openPdf(path);
  try {
    const pages = Math.min(doc.countPages(), pagesLooked);
    for (let index = 0; index < pages; index += 1) {
      const page = doc.loadPage(index);
      try {
        if (pageMarks(mupdf, page)) return false;
      } finally {
        page.destroy();
      }
    }
    return true;
  } finally {
    doc.destroy();
  }
}

function pageMarks(mupdf: MupdfModule, page: Mupdf.PDFPage): boolean {
  let marked = false;
  const paint = (colorspace: Mupdf.ColorSpace, color: number[]) => {
    if (!isWhite(colorspace, color)) marked = true;
  };
  const device = new mupdf.Device({
    fillPath: (_path, _evenOdd, _ctm, colorspace, color) => paint(colorspace, color),
    strokePath: (_path, _stroke, _ctm, colorspace, color) => paint(colorspace, color),
    fillText: (text) => {
      if (showsGlyph(text)) marked = true;
    },
    strokeText: (text) => {
      if (showsGlyph(text)) marked = true;
    },
    fillShade: () => {
      marked = true;
    },
    fillImage: () => {
      marked = true;
    },
    fillImageMask: () => {
      marked = true;
    },
  });
  try {
    page.run(device, mupdf.Matrix.identity);
  } finally {
    device.close();
  }
  return marked;
}

function isWhite(colorspace: Mupdf.ColorSpace, color: number[]): boolean {
  if (colorspace.isCMYK()) return color.every((value) => value === 0);
  return color.every((value) => value === 1);
}

function showsGlyph(text: Mupdf.Text): boolean {
  let shown = false;
  text.walk({
    showGlyph: (_font, _trm, _glyph, unicode) => {
      // A glyph without a character (unicode below 1) still paints something.
      if (unicode < 1 || !/^\s$/u.test(String.fromCodePoint(unicode))) shown = true;
    },
  });
  return shown;
}
