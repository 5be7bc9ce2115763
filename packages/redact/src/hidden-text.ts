import { forgetBorrowed } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import { type Box, centreOf, contains, overlaps } from "./box.js";

/**
 * Glyphs that text extraction finds but a reader of the page cannot see, in display space (y down):
 * - outside the crop box;
 * - invisible (render mode 3, or alpha 0), unless they lie on an image: that is a scan's OCR text layer,
 *   the searchable form of what the picture shows;
 * - white (or nearly) with nothing but the white page under them;
 * - under an opaque image or filled rectangle drawn after them (the cover of a fake redaction).
 * A reviewer cannot check what they cannot see, so a redacted document does not keep them.
 */
export function hiddenGlyphs(mupdf: MupdfModule, page: Mupdf.PDFPage): Box[] {
  const painting = new PaintingRecorder();
  const device = painting.device(mupdf);
  try {
    page.run(device, mupdf.Matrix.identity);
  } finally {
    device.close();
    device.destroy();
  }
  return painting.hidden(page.getBounds());
}

/** MuPDF.js bounds a path or text as filled when given no stroke state. */
const fillOnly = null as unknown as Mupdf.StrokeState;

type GlyphLook = "visible" | "invisible" | "white";

interface Glyph {
  box: Box;
  /** The box MuPDF's redaction may give it (see reach in addGlyphs): a removal point must lie outside. */
  reach: Box;
  space: boolean;
  /** The part of `box` inside the clips open when it was drawn; empty when clipped away. */
  shown: Box;
  look: GlyphLook;
  /** Its place in the painting order. */
  order: number;
}

interface Paint {
  box: Box;
  order: number;
  /** Paints every point of `box` opaquely: what was drawn there before it cannot be seen. */
  opaque: boolean;
  /** Not white: white text on it can be read. */
  dark: boolean;
  image: boolean;
}

/** Records what the page paints, in order, as boxes: glyphs, images, fills and shadings. */
class PaintingRecorder {
  private readonly glyphs: Glyph[] = [];
  private readonly paints: Paint[] = [];
  private order = 0;
  /** Per open clip, its bounds: nothing inside paints outside them. */
  private readonly clips: Box[] = [];
  /** Per open group, whether what it draws shows through (alpha, blend mode, soft mask). */
  private readonly groups: boolean[] = [];
  /** Inside a soft mask's definition or a tiling pattern's cell: not painted as such. */
  private ignored = 0;
  private maskPending = false;

  /** A device that records what is run through it. */
  device(mupdf: MupdfModule): Mupdf.Device {
    const glyphs = (text: Mupdf.Text, ctm: Mupdf.Matrix, look: GlyphLook): void => {
      if (this.ignored === 0) this.addGlyphs(mupdf, text, ctm, look);
      text.destroy();
    };
    return new mupdf.Device({
      fillText: (text, ctm, space, color, alpha) => {
        glyphs(text, ctm, alpha <= 0.01 ? "invisible" : isWhite(space, color) ? "white" : "visible");
        space.destroy();
      },
      strokeText: (text, stroke, ctm, space, _color, alpha) => {
        glyphs(text, ctm, alpha <= 0.01 ? "invisible" : "visible");
        stroke.destroy();
        space.destroy();
      },
      ignoreText: (text, ctm) => glyphs(text, ctm, "invisible"),
      fillPath: (path, _evenOdd, ctm, space, color, alpha) => {
        const box = path.getBounds(fillOnly, ctm) as Box;
        this.addPaint(box, {
          opaque: alpha >= 0.99 && isRectangle(path, ctm),
          dark: !isWhite(space, color),
          image: false,
        });
        path.destroy();
        space.destroy();
      },
      fillImage: (image, ctm, alpha) => {
        const mask = image.getMask();
        this.addPaint(unitSquare(mupdf, ctm), {
          opaque: alpha >= 0.99 && mask === null,
          dark: true,
          image: true,
        });
        mask?.destroy();
        forgetBorrowed(image);
      },
      fillImageMask: (image, ctm, space, color) => {
        this.addPaint(unitSquare(mupdf, ctm), { opaque: false, dark: !isWhite(space, color), image: false });
        space.destroy();
        forgetBorrowed(image);
      },
      fillShade: (shade, ctm, _alpha) => {
        this.addPaint(mupdf.Rect.transform(shade.getBounds(), ctm) as Box, {
          opaque: false,
          dark: true,
          image: false,
        });
        forgetBorrowed(shade);
      },
      clipPath: (path, _evenOdd, ctm) => {
        this.clips.push(path.getBounds(fillOnly, ctm) as Box);
        path.destroy();
      },
      clipStrokePath: (path, stroke, ctm) => {
        this.clips.push(path.getBounds(stroke, ctm) as Box);
        path.destroy();
        stroke.destroy();
      },
      clipText: (text, ctm) => {
        this.clips.push(text.getBounds(fillOnly, ctm) as Box);
        text.destroy();
      },
      clipStrokeText: (text, stroke, ctm) => {
        this.clips.push(text.getBounds(stroke, ctm) as Box);
        text.destroy();
        stroke.destroy();
      },
      clipImageMask: (image, ctm) => {
        this.clips.push(unitSquare(mupdf, ctm));
        forgetBorrowed(image);
      },
      popClip: () => {
        this.clips.pop();
      },
      beginMask: (_area, _luminosity, space) => {
        space.destroy();
        this.ignored += 1;
      },
      endMask: () => {
        this.ignored -= 1;
        this.maskPending = true;
      },
      beginGroup: (_area, space, _isolated, _knockout, blend, alpha) => {
        space.destroy();
        this.groups.push(this.maskPending || alpha < 0.99 || blend !== "Normal");
        this.maskPending = false;
      },
      endGroup: () => {
        this.groups.pop();
      },
      beginTile: () => {
        this.ignored += 1;
        return 0;
      },
      endTile: () => {
        this.ignored -= 1;
      },
    });
  }

  /** Where to remove each hidden glyph: a point inside it that no glyph left on the page reaches. */
  hidden(bounds: readonly number[]): Box[] {
    const page = bounds as unknown as Box;
    // Each kind of paint a glyph is tested against, once: a chart's thousands of strokes are none of them.
    const images = this.paints.filter((paint) => paint.image);
    const darks = this.paints.filter((paint) => paint.dark);
    const covers = this.paints.filter((paint) => paint.opaque);
    const isHidden = (glyph: Glyph): boolean => {
      // Outside the crop box, or clipped away.
      if (!overlaps(glyph.shown, page)) return true;
      if (glyph.look === "invisible") return !images.some((image) => overlaps(image.box, glyph.shown));
      const centre = centreOf(glyph.shown);
      if (glyph.look === "white") {
        const under = darks.some((paint) => paint.order < glyph.order && contains(paint.box, centre));
        if (!under) return true;
      }
      return covers.some((paint) => paint.order > glyph.order && containsBox(paint.box, glyph.shown));
    };
    const hidden: Glyph[] = [];
    const kept: Box[] = [];
    for (const glyph of this.glyphs) {
      // A space carries nothing to hide, and removing one would only join the words beside it.
      if (glyph.space) continue;
      if (isHidden(glyph)) hidden.push(glyph);
      else kept.push(glyph.reach);
    }
    return hidden.flatMap((glyph) => {
      const point = freePoint(glyph.box, kept);
      return point === undefined
        ? []
        : [[point[0] - 0.01, point[1] - 0.01, point[0] + 0.01, point[1] + 0.01]];
    });
  }

  private addGlyphs(mupdf: MupdfModule, text: Mupdf.Text, ctm: Mupdf.Matrix, look: GlyphLook): void {
    text.walk({
      showGlyph: (font, trm, glyph, unicode, wmode) => {
        const advance = Math.max(font.advanceGlyph(glyph, wmode), 0.3);
        const matrix = mupdf.Matrix.concat(trm, ctm);
        // The em box: from the baseline, a fifth of an em below to eight tenths above.
        const box = mupdf.Rect.transform([0, -0.2, advance, 0.8], matrix) as Box;
        // As far as MuPDF's redaction may take it to reach: a font's descender and ascender, generously.
        const reach = mupdf.Rect.transform([0, -0.35, advance, 1.05], matrix) as Box;
        const space = unicode === 32 || unicode === 0xa0 || (unicode >= 9 && unicode <= 13);
        this.order += 1;
        this.glyphs.push({ box, reach, space, shown: this.clipped(box), look, order: this.order });
      },
    });
  }

  private addPaint(box: Box, paint: Omit<Paint, "box" | "order">): void {
    if (this.ignored > 0) return;
    this.order += 1;
    const translucent = this.translucent();
    this.paints.push({
      ...paint,
      box: this.clipped(box),
      order: this.order,
      opaque: paint.opaque && !translucent,
    });
  }

  private translucent(): boolean {
    return this.groups.some(Boolean);
  }

  private clipped(box: Box): Box {
    return this.clips.reduce<Box>(
      (inner, clip) => [
        Math.max(inner[0], clip[0]),
        Math.max(inner[1], clip[1]),
        Math.min(inner[2], clip[2]),
        Math.min(inner[3], clip[3]),
      ],
      box,
    );
  }
}

/** Near white in its own colour space: gray and RGB near 1, CMYK near 0 (other spaces are not judged). */
function isWhite(space: Mupdf.ColorSpace, color: number[]): boolean {
  if (space.isCMYK()) return color.every((value) => value < 0.03);
  if (space.isGray() || space.isRGB()) return color.length > 0 && color.every((value) => value > 0.97);
  return false;
}

/** A path that fills exactly its bounds: one axis-aligned rectangle ("re", or four lines). */
function isRectangle(path: Mupdf.Path, ctm: Mupdf.Matrix): boolean {
  const points: [number, number][] = [];
  let subpaths = 0;
  let curves = false;
  path.walk({
    moveTo: (x, y) => {
      subpaths += 1;
      points.push([x, y]);
    },
    lineTo: (x, y) => points.push([x, y]),
    curveTo: () => {
      curves = true;
    },
  });
  if (curves || subpaths !== 1 || points.length < 4 || points.length > 5) return false;
  const corners = points.map(([x, y]) => [
    x * ctm[0] + y * ctm[2] + ctm[4],
    x * ctm[1] + y * ctm[3] + ctm[5],
  ]);
  const xs = new Set(corners.map(([x = 0]) => x.toFixed(1)));
  const ys = new Set(corners.map(([, y = 0]) => y.toFixed(1)));
  return xs.size === 2 && ys.size === 2;
}

function unitSquare(mupdf: MupdfModule, ctm: Mupdf.Matrix): Box {
  return mupdf.Rect.transform([0, 0, 1, 1], ctm) as Box;
}

function containsBox(outer: Box, inner: Box): boolean {
  const slack = 0.5;
  return (
    outer[0] - slack <= inner[0] &&
    outer[1] - slack <= inner[1] &&
    inner[2] <= outer[2] + slack &&
    inner[3] <= outer[3] + slack
  );
}

/**
 * A point well inside `box` (its middle, or else one of a grid over its inner part) that lies in none of
 * `kept`: MuPDF's redaction removes every glyph whose box (less a tenth a side) meets a redaction's
 * rectangle, so a tiny rectangle there takes the hidden glyph and no glyph a reader sees. None where the
 * visible glyphs cover it whole: the hidden glyph stays rather than take them with it.
 */
function freePoint(box: Box, kept: Box[]): [number, number] | undefined {
  const near = kept.filter((other) => overlaps(other, box));
  const [x0, y0, x1, y1] = box;
  const candidates: [number, number][] = [centreOf(box)];
  for (const u of [0.25, 0.4, 0.6, 0.75])
    for (const v of [0.25, 0.4, 0.6, 0.75]) candidates.push([x0 + (x1 - x0) * u, y0 + (y1 - y0) * v]);
  return candidates.find((point) => !near.some((other) => contains(other, point)));
}
