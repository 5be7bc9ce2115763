import { forgetBorrowed } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import type { Box } from "./box.js";
import { type XObjectEntry, xobjectEntries } from "./content-stream.js";

/** An image the page draws, where it draws it, and the parts of it the boxes cover, in its own pixels. */
interface CoveredImage {
  placement: Placement;
  /** [x0, y0, x1, y1] in the image's pixels, row 0 at the top. */
  rects: Box[];
}

interface Placement {
  /** The fz_image MuPDF drew: one per image object, kept while the document is open. */
  pointer: number;
  /** Maps the image's unit square to the page as displayed. */
  ctm: Mupdf.Matrix;
  width: number;
  height: number;
}

/**
 * MuPDF clears an image's pixels under a redaction box to white. Found before the redaction (where the page
 * draws each image, what the boxes cover of it), the same pixels are painted in the fill colour after it, so
 * the picture's own data shows the box as the page does (an image drawn inline is made an XObject first, by
 * inlineImagesAsXObjects).
 */
export function coveredImages(mupdf: MupdfModule, page: Mupdf.PDFPage, boxes: Box[]): CoveredImage[] {
  // Most text pages draw no image XObject: then there is nothing to run the page for.
  if (imageEntries(page.getObject().getInheritable("Resources")).next().done) return [];
  return placements(mupdf, page)
    .map((placement) => ({
      placement,
      rects: boxes.map((box) => pixelRect(mupdf, placement, box)).filter((rect) => rect !== undefined),
    }))
    .filter((image) => image.rects.length > 0);
}

/** Paints the covered pixels of each image, as MuPDF's redaction left it, in `fill` (0..1 RGB). */
export function fillCoveredPixels(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
  covered: CoveredImage[],
  fill: [number, number, number],
): void {
  if (covered.length === 0) return;
  // The redaction wrote new image objects under new names: found again where they are drawn.
  const drawn = placements(mupdf, page);
  const objects = imageXObjects(doc, page.getObject().get("Resources"));
  for (const { placement, rects } of covered) {
    const now = drawn.find((other) => sameDrawing(other, placement));
    const object = objects.find((candidate) => candidate.pointer === now?.pointer);
    if (object === undefined) continue;
    const image = doc.loadImage(object.owner.get(object.name));
    const mask = image.getMask();
    // A copy: MuPDF may hand out the decoded pixels it keeps for the image, which other pages draw too.
    const pixmap = copyOf(mupdf, image.toPixmap());
    try {
      const colour = inSpaceOf(pixmap, fill);
      if (colour === undefined) continue;
      paintRects(pixmap, rects, colour);
      object.owner.put(object.name, doc.addImage(new mupdf.Image(pixmap, mask ?? undefined)));
    } finally {
      pixmap.destroy();
      mask?.destroy();
      image.destroy();
    }
  }
}

function copyOf(mupdf: MupdfModule, decoded: Mupdf.Pixmap): Mupdf.Pixmap {
  try {
    const space = decoded.getColorSpace();
    const copy = new mupdf.Pixmap(
      space ?? mupdf.ColorSpace.DeviceGray,
      decoded.getBounds() as Mupdf.Rect,
      decoded.getAlpha() !== 0,
    );
    space?.destroy();
    copy.getPixels().set(decoded.getPixels());
    return copy;
  } finally {
    decoded.destroy();
  }
}

function placements(mupdf: MupdfModule, page: Mupdf.PDFPage): Placement[] {
  const found: Placement[] = [];
  const device = new mupdf.Device({
    fillImage: (image, ctm) => {
      found.push({ pointer: image.pointer, ctm, width: image.getWidth(), height: image.getHeight() });
      forgetBorrowed(image);
    },
  });
  try {
    page.run(device, mupdf.Matrix.identity);
  } finally {
    device.close();
    device.destroy();
  }
  return found;
}

function sameDrawing(a: Placement, b: Placement): boolean {
  return (
    a.width === b.width &&
    a.height === b.height &&
    a.ctm.every((value, index) => Math.abs(value - (b.ctm[index] ?? 0)) < 0.01)
  );
}

/** The image XObjects named in `resources` and in the Form XObjects it draws (xobjectEntries). */
function* imageEntries(resources: Mupdf.PDFObject): Generator<XObjectEntry> {
  for (const entry of xobjectEntries(resources)) if (entry.subtype === "Image") yield entry;
}

/** The image XObjects of `resources` (see imageEntries), each with the fz_image MuPDF keeps for it. */
function imageXObjects(
  doc: Mupdf.PDFDocument,
  resources: Mupdf.PDFObject,
): { owner: Mupdf.PDFObject; name: string; pointer: number }[] {
  return [...imageEntries(resources)].map(({ owner, name, object }) => {
    const image = doc.loadImage(object);
    try {
      return { owner, name, pointer: image.pointer };
    } finally {
      image.destroy();
    }
  });
}

/** The box in the image's pixels, where the image's unit square is drawn by `ctm` (row 0 at the top). */
function pixelRect(mupdf: MupdfModule, placement: Placement, box: Box): Box | undefined {
  const [u0, v0, u1, v1] = mupdf.Rect.transform(box, mupdf.Matrix.invert(placement.ctm));
  const rect: Box = [
    Math.max(0, Math.floor(u0 * placement.width)),
    Math.max(0, Math.floor(v0 * placement.height)),
    Math.min(placement.width, Math.ceil(u1 * placement.width)),
    Math.min(placement.height, Math.ceil(v1 * placement.height)),
  ];
  return rect[0] < rect[2] && rect[1] < rect[3] ? rect : undefined;
}

/** The fill in the pixmap's components: gray, RGB or CMYK; other spaces keep MuPDF's white. */
function inSpaceOf(pixmap: Mupdf.Pixmap, [red, green, blue]: [number, number, number]): number[] | undefined {
  const space = pixmap.getColorSpace();
  try {
    if (space === null || space.isGray()) return [0.2126 * red + 0.7152 * green + 0.0722 * blue];
    if (space.isRGB()) return [red, green, blue];
    if (space.isCMYK()) {
      const black = 1 - Math.max(red, green, blue);
      const ink = (value: number) => (black >= 1 ? 0 : (1 - value - black) / (1 - black));
      return [ink(red), ink(green), ink(blue), black];
    }
    return undefined;
  } finally {
    space?.destroy();
  }
}

/** Sets the pixels of `rects` ([x0, y0, x1, y1], x1 and y1 not included) to `colour`, 0..1 per component. */
export function paintRects(pixmap: Mupdf.Pixmap, rects: Box[], colour: readonly number[]): void {
  const samples = pixmap.getPixels();
  const stride = pixmap.getStride();
  // MuPDF's n counts the alpha channel.
  const components = pixmap.getNumberOfComponents();
  const values = colour.map((value) => Math.round(value * 255));
  if (pixmap.getAlpha()) values.push(255);
  for (const [x0, y0, x1, y1] of rects) {
    for (let y = y0; y < y1; y += 1) {
      for (let x = x0; x < x1; x += 1) {
        const at = y * stride + x * components;
        for (let component = 0; component < components; component += 1) {
          samples[at + component] = values[component] ?? 255;
        }
      }
    }
  }
}
