/** Where text goes on a page: pure geometry, in the page's display space (as the reader sees it, y down). */
import type { Mupdf } from "@octavo/mupdf";

export type StampPosition =
  | "center"
  | "top-left"
  | "top-center"
  | "top-right"
  | "bottom-left"
  | "bottom-center"
  | "bottom-right";

/** A line of text in em units: from its origin to `advance` along the baseline, `bottom`..`top` across it (y up). */
export interface TextBox {
  advance: number;
  bottom: number;
  top: number;
}

export interface TextPlacement {
  /** Maps text space (glyph units scaled by `size`, y up) to display space. */
  matrix: Mupdf.Matrix;
  /** The font size used: the one asked for, or smaller when the text would not fit inside the margins. */
  size: number;
}

/** Where the text's box sits along one axis: against the near edge (left, top), centred, or the far one. */
type Alignment = "near" | "middle" | "far";

/** [across, down] */
const alignments: Record<StampPosition, [Alignment, Alignment]> = {
  center: ["middle", "middle"],
  "top-left": ["near", "near"],
  "top-center": ["middle", "near"],
  "top-right": ["far", "near"],
  "bottom-left": ["near", "far"],
  "bottom-center": ["middle", "far"],
  "bottom-right": ["far", "far"],
};

/** A margin never takes more than this share of the page's shorter side (small labels, cards). */
const maxMarginShare = 0.1;

/** The margin actually kept on a page `visible` wide and high: `preferred` points, less on a tiny page. */
export function marginFor(visible: Mupdf.Rect, preferred: number): number {
  const shorter = Math.min(visible[2] - visible[0], visible[3] - visible[1]);
  return Math.max(0, Math.min(preferred, shorter * maxMarginShare));
}

/**
 * Places a line of text inside `visible` (display space): the box of the text, turned `rotation` degrees
 * counter-clockwise as the reader sees it, is put at `position`, `margin` from the edges it is next to
 * (centred along the others), and scaled down if it does not fit between the margins.
 */
export function placeText(
  box: TextBox,
  visible: Mupdf.Rect,
  options: { size: number; rotation: number; position: StampPosition; margin: number },
): TextPlacement {
  const radians = (options.rotation * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  // The text box's corners turned as the reader sees them (y up, one em = 1).
  const corners = [
    [0, box.bottom],
    [box.advance, box.bottom],
    [0, box.top],
    [box.advance, box.top],
  ].map(([x = 0, y = 0]) => [x * cos - y * sin, x * sin + y * cos] as const);
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const [left, right, low, high] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];

  const [x0, y0, x1, y1] = visible;
  const roomX = Math.max(0, x1 - x0 - 2 * options.margin);
  const roomY = Math.max(0, y1 - y0 - 2 * options.margin);
  const fit = Math.min(1, ratio(roomX, right - left, options.size), ratio(roomY, high - low, options.size));
  const size = options.size * fit;

  const [across, down] = alignments[options.position];
  const boxLeft = startAlong(across, x0, x1, (right - left) * size, options.margin);
  const boxTop = startAlong(down, y0, y1, (high - low) * size, options.margin);
  // The text origin sits `-left` em right of the box's left edge and `high` em below its top edge.
  const originX = boxLeft - left * size;
  const originY = boxTop + high * size;
  return { matrix: [cos, -sin, -sin, -cos, originX, originY], size };
}

/** How far `extent` em at `size` must shrink to fit in `room`; 1 when it fits or has no extent. */
function ratio(room: number, extent: number, size: number): number {
  return extent * size <= room || extent <= 0 ? 1 : room / (extent * size);
}

/** Where a box `length` long starts between `start` and `end`, aligned as asked and `margin` from the edge. */
function startAlong(
  alignment: Alignment,
  start: number,
  end: number,
  length: number,
  margin: number,
): number {
  if (alignment === "near") return start + margin;
  if (alignment === "far") return end - margin - length;
  return (start + end - length) / 2;
}
