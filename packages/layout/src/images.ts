import type { Mupdf } from "@octavo/mupdf";
import { currentMupdf } from "@octavo/mupdf";
import { roundBox } from "./geometry.js";
import type { RawImage } from "./glyphs.js";
import type { ImageBlock } from "./types.js";

/** Images smaller than this on the page (points) are rules, bullets or specks. */
const minSide = 4;
/** Decoding a larger image would need hundreds of megabytes; such images are re-rendered instead. */
const maxPixels = 16_000_000;

function encode(pixmap: Mupdf.Pixmap): { data: Uint8Array; width: number; height: number } {
  const mupdf = currentMupdf();
  const n = pixmap.getNumberOfComponents();
  let usable = pixmap;
  // PNG holds grey or RGB; CMYK, Lab and the like go to RGB first.
  if (n !== 1 && n !== 3) usable = pixmap.convertToColorSpace(mupdf.ColorSpace.DeviceRGB, true);
  try {
    return { data: usable.asPNG(), width: usable.getWidth(), height: usable.getHeight() };
  } finally {
    if (usable !== pixmap) usable.destroy();
  }
}

/** Renders the page area under an oversized image at a resolution that fits the pixel budget. */
function renderArea(page: Mupdf.Page, box: ImageBlock["box"]): Mupdf.Pixmap {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  const scale = Math.min(4, Math.sqrt(maxPixels / Math.max(1, w * h)));
  const bbox: Mupdf.Rect = [
    Math.floor(box.x0 * scale),
    Math.floor(box.y0 * scale),
    Math.ceil(box.x1 * scale),
    Math.ceil(box.y1 * scale),
  ];
  const mupdf = currentMupdf();
  const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, bbox, false);
  pixmap.clear(255);
  const device = new mupdf.DrawDevice(mupdf.Matrix.scale(scale, scale), pixmap);
  try {
    page.run(device, mupdf.Matrix.identity);
  } finally {
    device.close();
    device.destroy();
  }
  return pixmap;
}

export function imageBlocks(page: Mupdf.Page, raws: RawImage[], withData = true): ImageBlock[] {
  const out: ImageBlock[] = [];
  for (const { box, image } of raws) {
    try {
      if (box.x1 - box.x0 < minSide || box.y1 - box.y0 < minSide) continue;
      if (!withData) {
        const [width, height] = [image.getWidth(), image.getHeight()];
        out.push({
          kind: "image",
          box: roundBox(box),
          data: new Uint8Array(0),
          mime: "image/png",
          width,
          height,
        });
        continue;
      }
      const large = image.getWidth() * image.getHeight() > maxPixels;
      const pixmap = large ? renderArea(page, box) : image.toPixmap();
      try {
        const { data, width, height } = encode(pixmap);
        out.push({ kind: "image", box: roundBox(box), data, mime: "image/png", width, height });
      } finally {
        pixmap.destroy();
      }
    } catch {
      // An image MuPDF cannot decode is left out rather than failing the page.
    } finally {
      image.destroy();
    }
  }
  return out;
}
