import type { Box } from "./types.js";

export function emptyBox(): Box {
  return { x0: Number.POSITIVE_INFINITY, y0: Number.POSITIVE_INFINITY, x1: -Infinity, y1: -Infinity };
}

export function unionBoxes(boxes: Iterable<Box>): Box {
  const out = emptyBox();
  for (const b of boxes) {
    out.x0 = Math.min(out.x0, b.x0);
    out.y0 = Math.min(out.y0, b.y0);
    out.x1 = Math.max(out.x1, b.x1);
    out.y1 = Math.max(out.y1, b.y1);
  }
  return out;
}

export function isEmptyBox(b: Box): boolean {
  return !(b.x1 >= b.x0 && b.y1 >= b.y0);
}

export function boxWidth(b: Box): number {
  return b.x1 - b.x0;
}

export function boxHeight(b: Box): number {
  return b.y1 - b.y0;
}

export function centreInside(inner: Box, outer: Box, slack = 0): boolean {
  const cx = (inner.x0 + inner.x1) / 2;
  const cy = (inner.y0 + inner.y1) / 2;
  return cx >= outer.x0 - slack && cx <= outer.x1 + slack && cy >= outer.y0 - slack && cy <= outer.y1 + slack;
}

/** Length of the overlap of [a0, a1] and [b0, b1]; negative when they are apart. */
export function overlap1d(a0: number, a1: number, b0: number, b1: number): number {
  return Math.min(a1, b1) - Math.max(a0, b0);
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function roundBox(b: Box): Box {
  const r = (v: number) => Math.round(v * 100) / 100;
  return { x0: r(b.x0), y0: r(b.y0), x1: r(b.x1), y1: r(b.y1) };
}

/** Groups sorted numbers whose neighbours lie within `tolerance`, returning each group's mean. */
export function clusterValues(values: number[], tolerance: number): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  let group: number[] = [];
  for (const v of sorted) {
    const last = group[group.length - 1];
    if (last !== undefined && v - last > tolerance) {
      out.push(group.reduce((s, x) => s + x, 0) / group.length);
      group = [];
    }
    group.push(v);
  }
  if (group.length) out.push(group.reduce((s, x) => s + x, 0) / group.length);
  return out;
}
