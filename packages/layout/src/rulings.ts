import type { Mupdf } from "@octavo/mupdf";
import { currentMupdf } from "@octavo/mupdf";

/** A horizontal (y0 = y1) or vertical (x0 = x1) line segment drawn on the page. */
export interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Rulings {
  horizontal: Segment[];
  vertical: Segment[];
}

/** Drawn lines, and the edges of filled boxes (cell backgrounds), kept apart. */
export interface PageRulings {
  lines: Rulings;
  boxEdges: Rulings;
  /** Midpoints of drawn slanted segments: the strokes of charts, arrows and diagrams, not of tables. */
  slants: Point[];
}

export type Point = [number, number];

const maxThickness = 3;
const minLength = 2;

function transform(m: Mupdf.Matrix, x: number, y: number): Point {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

function isWhite(color: number[]): boolean {
  if (color.length === 4) return color.every((v) => v < 0.03);
  return color.length > 0 && color.every((v) => v > 0.97);
}

/** Each subpath as a polyline in page space; curves that are nearly straight count as lines. */
function polylines(path: Mupdf.Path, ctm: Mupdf.Matrix): { points: Point[]; closed: boolean }[] {
  const out: { points: Point[]; closed: boolean }[] = [];
  let current: { points: Point[]; closed: boolean } | undefined;
  path.walk({
    moveTo(x, y) {
      current = { points: [transform(ctm, x, y)], closed: false };
      out.push(current);
    },
    lineTo(x, y) {
      current?.points.push(transform(ctm, x, y));
    },
    curveTo(_x1, _y1, _x2, _y2, x3, y3) {
      current?.points.push(transform(ctm, x3, y3));
    },
    closePath() {
      if (current) {
        current.closed = true;
        const first = current.points[0];
        if (first) current.points.push(first);
      }
    },
  });
  return out;
}

function addSegment(out: Rulings, a: Point, b: Point, tolerance: number): void {
  const dx = Math.abs(a[0] - b[0]);
  const dy = Math.abs(a[1] - b[1]);
  if (dy <= tolerance && dx >= minLength) {
    const y = (a[1] + b[1]) / 2;
    out.horizontal.push({ x0: Math.min(a[0], b[0]), y0: y, x1: Math.max(a[0], b[0]), y1: y });
  } else if (dx <= tolerance && dy >= minLength) {
    const x = (a[0] + b[0]) / 2;
    out.vertical.push({ x0: x, y0: Math.min(a[1], b[1]), x1: x, y1: Math.max(a[1], b[1]) });
  }
}

/** Records the slanted edges of a polyline (neither horizontal nor vertical within `tolerance`). */
function addSlants(out: Point[], points: Point[], tolerance: number): void {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (!a || !b) continue;
    const dx = Math.abs(a[0] - b[0]);
    const dy = Math.abs(a[1] - b[1]);
    if (dx > tolerance && dy > tolerance && Math.hypot(dx, dy) >= minLength)
      out.push([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
  }
}

function addFilledShape(out: PageRulings, points: Point[]): void {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const y0 = Math.min(...ys);
  const y1 = Math.max(...ys);
  const w = x1 - x0;
  const h = y1 - y0;
  if (h <= maxThickness && w >= minLength) {
    out.lines.horizontal.push({ x0, y0: (y0 + y1) / 2, x1, y1: (y0 + y1) / 2 });
  } else if (w <= maxThickness && h >= minLength) {
    out.lines.vertical.push({ x0: (x0 + x1) / 2, y0, x1: (x0 + x1) / 2, y1 });
  } else if (points.length <= 6) {
    // A filled box (a cell's background): its edges may be the only grid drawn.
    out.boxEdges.horizontal.push({ x0, y0, x1, y1: y0 }, { x0, y0: y1, x1, y1 });
    out.boxEdges.vertical.push({ x0, y0, x1: x0, y1 }, { x0: x1, y0, x1, y1 });
  }
}

/** Collects the page's horizontal and vertical rulings from stroked lines and thin filled boxes. */
export function collectRulings(page: Mupdf.Page): PageRulings {
  const out: PageRulings = {
    lines: { horizontal: [], vertical: [] },
    boxEdges: { horizontal: [], vertical: [] },
    slants: [],
  };
  const bounds = page.getBounds();
  const pageArea = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1]);
  const mupdf = currentMupdf();
  const device = new mupdf.Device({
    fillPath(path, _evenOdd, ctm, _colorspace, color) {
      if (!isWhite(color)) {
        for (const { points } of polylines(path, ctm)) {
          const xs = points.map((p) => p[0]);
          const ys = points.map((p) => p[1]);
          const area = (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys));
          // A page-sized background is no cell.
          if (area < pageArea * 0.5) addFilledShape(out, points);
          addSlants(out.slants, points, 1);
        }
      }
      path.destroy();
    },
    strokePath(path, stroke, ctm, _colorspace, color) {
      if (!isWhite(color)) {
        const tolerance = Math.max(1, stroke.getLineWidth());
        for (const { points } of polylines(path, ctm)) {
          addSlants(out.slants, points, tolerance);
          for (let i = 1; i < points.length; i++) {
            const a = points[i - 1];
            const b = points[i];
            if (a && b) addSegment(out.lines, a, b, tolerance);
          }
        }
      }
      path.destroy();
    },
  });
  try {
    page.run(device, mupdf.Matrix.identity);
  } finally {
    device.close();
    device.destroy();
  }
  return out;
}
