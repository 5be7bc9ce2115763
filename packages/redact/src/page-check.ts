import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import type { Box } from "./box.js";
import { paintRects } from "./image-fill.js";

/**
 * MuPDF writes a page's content anew when it redacts, and on some pages it writes positions wrong (MuPDF 1.28
 * drops a T* under a leading of 0; its handling of ' is avoided by spellOutQuotes). So a page is drawn before
 * and after, small, and compared outside the boxes; a page that changed there is drawn whole as a picture
 * instead (asPicture), from the untouched page, with the boxes painted in.
 */

/** Resolution of the comparison, in dots per inch: an 8 pt glyph is some 4 dots by 3. */
const checkDpi = 36;
/** Dots outside the boxes that differ this much (of 255, in gray) count as changed. */
const changedLevel = 96;
/** More changed dots than this, outside the boxes, is a damaged page: a word or two moved. */
const damagedDots = 12;
/** Boxes are masked with this margin, in points: a glyph MuPDF takes at a box's edge is not damage. */
const maskMargin = 3;

export function drawForCheck(mupdf: MupdfModule, page: Mupdf.PDFPage): Mupdf.Pixmap {
  const scale = checkDpi / 72;
  return page.toPixmap([scale, 0, 0, scale, 0, 0], mupdf.ColorSpace.DeviceGray, false, false);
}

/** Whether the page as drawn now differs from `before` outside the boxes (display space). */
export function changedOutside(before: Mupdf.Pixmap, after: Mupdf.Pixmap, boxes: Box[], page: Box): boolean {
  if (before.getWidth() !== after.getWidth() || before.getHeight() !== after.getHeight()) return true;
  const scale = checkDpi / 72;
  const [width, height] = [before.getWidth(), before.getHeight()];
  const masked = new Uint8Array(width * height);
  for (const [x0, y0, x1, y1] of boxes) {
    const from = (value: number, origin: number) => Math.floor((value - origin - maskMargin) * scale);
    const to = (value: number, origin: number) => Math.ceil((value - origin + maskMargin) * scale);
    for (let y = Math.max(0, from(y0, page[1])); y < Math.min(height, to(y1, page[1])); y += 1) {
      masked.fill(
        1,
        y * width + Math.max(0, from(x0, page[0])),
        y * width + Math.min(width, to(x1, page[0])),
      );
    }
  }
  const [a, b] = [before.getPixels(), after.getPixels()];
  const stride = before.getStride();
  // A dot changed when nothing in the other drawing within a dot of it is like it: a line MuPDF wrote back
  // with rounded coordinates moves by under a dot, text it mispositions moves by many.
  const unmatched = (from: Uint8ClampedArray, to: Uint8ClampedArray, x: number, y: number): boolean => {
    const value = from[y * stride + x] ?? 0;
    for (let dy = -1; dy <= 1; dy += 1) {
      for (let dx = -1; dx <= 1; dx += 1) {
        const [ox, oy] = [x + dx, y + dy];
        if (ox < 0 || oy < 0 || ox >= width || oy >= height) continue;
        if (Math.abs(value - (to[oy * stride + ox] ?? 0)) <= changedLevel) return false;
      }
    }
    return true;
  };
  let changed = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (masked[y * width + x]) continue;
      if (a[y * stride + x] === b[y * stride + x]) continue;
      if ((unmatched(a, b, x, y) || unmatched(b, a, x, y)) && ++changed > damagedDots) return true;
    }
  }
  return false;
}

/** The picture's resolution, in dots per inch, and its size limit (a poster is drawn coarser). */
const pictureDpi = 200;
const maxPictureDots = 30_000_000;

/**
 * Replaces the page's content with a picture of `untouched` (the same page of the document as it came),
 * the boxes painted over in `fill` in the picture itself: no text, vector or image object of the page is
 * left, so nothing under a box can be recovered, and nothing outside one moved. Annotations stay as they are.
 */
export function asPicture(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
  untouched: Mupdf.PDFPage,
  boxes: Box[],
  fill: [number, number, number],
): void {
  const bounds = untouched.getBounds();
  const [pageWidth, pageHeight] = [bounds[2] - bounds[0], bounds[3] - bounds[1]];
  const dpi = Math.min(pictureDpi, 72 * Math.sqrt(maxPictureDots / Math.max(1, pageWidth * pageHeight)));
  const scale = dpi / 72;
  const pixmap = untouched.toPixmap([scale, 0, 0, scale, 0, 0], mupdf.ColorSpace.DeviceRGB, false, false);
  try {
    // Painted a dot inside each box: the box drawn over the picture (fillBoxes) covers the rest, and a dot
    // outside it would show as a line of the fill beside the box.
    const [width, height] = [pixmap.getWidth(), pixmap.getHeight()];
    const inside = boxes.map(
      ([x0, y0, x1, y1]): Box => [
        Math.max(0, Math.ceil((x0 - bounds[0]) * scale)),
        Math.max(0, Math.ceil((y0 - bounds[1]) * scale)),
        Math.min(width, Math.floor((x1 - bounds[0]) * scale)),
        Math.min(height, Math.floor((y1 - bounds[1]) * scale)),
      ],
    );
    paintRects(pixmap, inside, fill);
    const image = doc.addImage(new mupdf.Image(pixmap));
    // The picture's unit square on the page as displayed (MuPDF draws an image's first row at v = 0), taken
    // back to the page's own space, which /Rotate and the crop box turn and move.
    const flip: Mupdf.Matrix = [1, 0, 0, -1, 0, 1];
    const shown: Mupdf.Matrix = [pageWidth, 0, 0, pageHeight, bounds[0], bounds[1]];
    const placed = mupdf.Matrix.concat(
      mupdf.Matrix.concat(flip, shown),
      mupdf.Matrix.invert(page.getTransform()),
    );
    const xobjects = doc.newDictionary();
    xobjects.put("Im0", image);
    const resources = doc.newDictionary();
    resources.put("XObject", xobjects);
    const object = page.getObject();
    object.put("Resources", resources);
    object.put(
      "Contents",
      doc.addStream(
        `q ${placed.map((value) => value.toFixed(4)).join(" ")} cm /Im0 Do Q\n`,
        doc.newDictionary(),
      ),
    );
  } finally {
    pixmap.destroy();
  }
}
