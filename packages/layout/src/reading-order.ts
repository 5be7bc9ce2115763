import { unionBoxes } from "./geometry.js";
import type { Box } from "./types.js";

export interface Placed {
  box: Box;
}

/** Items of one column stretch, top to bottom, and the frame (column bounds) they sit in. */
export interface Leaf<T extends Placed> {
  items: T[];
  frame: Box;
}

export interface Sections<T extends Placed> {
  leaves: Leaf<T>[];
  /** Column frames of the tallest multi-column stretch, left to right. */
  columns: Box[];
}

/** The narrowest gutter between the columns of a page (points), bodies of small type aside. */
export const minGutterPt = 8;

/** x ranges of vertical whitespace, at least `minGutter` wide, with items on both sides. */
function gutters(items: Placed[], minGutter: number): [number, number][] {
  const sorted = [...items].sort((a, b) => a.box.x0 - b.box.x0);
  const out: [number, number][] = [];
  let reach = Number.NEGATIVE_INFINITY;
  for (const item of sorted) {
    if (reach > Number.NEGATIVE_INFINITY && item.box.x0 - reach >= minGutter) out.push([reach, item.box.x0]);
    reach = Math.max(reach, item.box.x1);
  }
  return out;
}

/** Splits into horizontal bands wherever no item spans a y gap. */
function bands<T extends Placed>(items: T[]): T[][] {
  const sorted = [...items].sort((a, b) => a.box.y0 - b.box.y0);
  const out: T[][] = [];
  let reach = Number.NEGATIVE_INFINITY;
  for (const item of sorted) {
    const band = out[out.length - 1];
    if (band && item.box.y0 < reach) band.push(item);
    else out.push([item]);
    reach = Math.max(reach, item.box.y1);
  }
  return out;
}

/**
 * Stretches of bands, top to bottom: column stretches (bands that keep a vertical gutter) and
 * full-width stretches, so two columns whose lines share baselines stay apart.
 */
function stretches<T extends Placed>(items: T[], minGutter: number): T[][] {
  const groups: T[][] = [];
  const split = (list: T[]) => gutters(list, minGutter).length > 0;
  for (const band of bands(items)) {
    const group = groups[groups.length - 1];
    const joined = group ? split([...group, ...band]) : false;
    // Column stretches absorb bands that keep their gutter; full-width stretches absorb full-width bands.
    if (group && split(group) && joined) group.push(...band);
    else if (group && !split(group) && !split(band) && !joined) group.push(...band);
    else groups.push([...band]);
  }
  return groups;
}

/**
 * The items of each column of the page's multi-column stretches, one level deep (a column's own
 * gutters, such as a table's, are not cut). Full-width stretches are left out.
 */
export function pageColumns<T extends Placed>(items: T[], minGutter: number): T[][] {
  return stretches(items, minGutter).flatMap((group) => {
    const cuts = gutters(group, minGutter);
    if (!cuts.length) return [];
    const edges = [Number.NEGATIVE_INFINITY, ...cuts.flat(), Number.POSITIVE_INFINITY];
    return Array.from({ length: cuts.length + 1 }, (_, c) =>
      group.filter((i) => {
        const x = (i.box.x0 + i.box.x1) / 2;
        return x >= (edges[2 * c] ?? 0) && x <= (edges[2 * c + 1] ?? 0);
      }),
    );
  });
}

/** A gutter of a multi-column stretch of the page, with the items of the stretch on each side. */
export interface StretchGutter<T extends Placed> {
  x0: number;
  x1: number;
  left: T[];
  right: T[];
}

/** The gutters of the page's multi-column stretches (one level deep, as pageColumns cuts them). */
export function stretchGutters<T extends Placed>(items: T[], minGutter: number): StretchGutter<T>[] {
  return stretches(items, minGutter).flatMap((group) =>
    gutters(group, minGutter).map(([x0, x1]) => ({
      x0,
      x1,
      left: group.filter((item) => item.box.x1 <= x0),
      right: group.filter((item) => item.box.x0 >= x1),
    })),
  );
}

/**
 * Recursive XY-cut that keeps columns whole: bands are grouped while the group still has a
 * vertical gutter, so two columns whose lines share baselines are not read across.
 */
export function readingOrder<T extends Placed>(
  items: T[],
  frame: Box,
  minGutter: number,
  depth = 0,
): Sections<T> {
  const result: Sections<T> = { leaves: [], columns: [] };
  if (!items.length) return result;
  let tallest = 0;
  for (const group of stretches(items, minGutter)) {
    const cuts = depth < 4 ? gutters(group, minGutter) : [];
    if (!cuts.length) {
      result.leaves.push({ items: group.sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0), frame });
      continue;
    }
    const box = unionBoxes(group.map((i) => i.box));
    const edges = [frame.x0, ...cuts.flat(), frame.x1];
    const columns: Box[] = [];
    for (let c = 0; c <= cuts.length; c++) {
      const x0 = edges[2 * c] ?? frame.x0;
      const x1 = edges[2 * c + 1] ?? frame.x1;
      const members = group.filter((i) => (i.box.x0 + i.box.x1) / 2 >= x0 && (i.box.x0 + i.box.x1) / 2 <= x1);
      const column = { x0, y0: box.y0, x1, y1: box.y1 };
      columns.push(unionBoxes(members.map((m) => m.box)));
      const inner = readingOrder(members, column, minGutter, depth + 1);
      result.leaves.push(...inner.leaves);
    }
    if (box.y1 - box.y0 > tallest) {
      tallest = box.y1 - box.y0;
      result.columns = columns;
    }
  }
  return result;
}
