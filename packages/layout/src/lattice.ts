import { clusterValues } from "./geometry.js";
import type { Rulings, Segment } from "./rulings.js";
import { rulingNetworks } from "./segments.js";

/** A ruled grid before text is poured in: edges and which grid positions merge. */
export interface LatticeGrid {
  columnEdges: number[];
  rowEdges: number[];
  /** Merged areas: top-left position and spans; every position is covered once. */
  areas: { row: number; col: number; rowSpan: number; colSpan: number }[];
}

const touchTolerance = 3;
/** Rows or columns thinner than this (points) are double rulings, not cells. */
const minCellSize = 4;

function edgesOf(positions: number[], lo: number, hi: number): number[] {
  const edges = clusterValues([...positions, lo, hi], 2);
  const out: number[] = [];
  for (const e of edges) {
    const last = out[out.length - 1];
    if (last !== undefined && e - last < minCellSize) out[out.length - 1] = (last + e) / 2;
    else out.push(e);
  }
  return out;
}

/** Share of [a, b] that rulings at `at` (± tolerance) cover. */
function coverage(rulings: Segment[], vertical: boolean, at: number, a: number, b: number): number {
  let covered = 0;
  for (const s of rulings) {
    const pos = vertical ? s.x0 : s.y0;
    if (Math.abs(pos - at) > touchTolerance) continue;
    const lo = vertical ? s.y0 : s.x0;
    const hi = vertical ? s.y1 : s.x1;
    covered += Math.max(0, Math.min(hi, b) - Math.max(lo, a));
  }
  return covered / Math.max(1e-6, b - a);
}

function gridOf(network: Rulings): LatticeGrid | undefined {
  const { horizontal, vertical } = network;
  // The extents of the rulings close a table that has no outer frame.
  const left = Math.min(...horizontal.map((h) => h.x0), ...vertical.map((v) => v.x0));
  const right = Math.max(...horizontal.map((h) => h.x1), ...vertical.map((v) => v.x0));
  const top = Math.min(...vertical.map((v) => v.y0), ...horizontal.map((h) => h.y0));
  const bottom = Math.max(...vertical.map((v) => v.y1), ...horizontal.map((h) => h.y0));
  const columnEdges = edgesOf(
    vertical.map((v) => v.x0),
    left,
    right,
  );
  const rowEdges = edgesOf(
    horizontal.map((h) => h.y0),
    top,
    bottom,
  );
  const rows = rowEdges.length - 1;
  const cols = columnEdges.length - 1;
  if (rows < 1 || cols < 1 || rows * cols < 2) return undefined;
  const x = (i: number) => columnEdges[i] ?? 0;
  const y = (i: number) => rowEdges[i] ?? 0;
  // A boundary between neighbouring positions exists when a ruling covers most of it.
  const wallRight = (r: number, c: number) => coverage(vertical, true, x(c + 1), y(r), y(r + 1)) > 0.5;
  const wallBelow = (r: number, c: number) => coverage(horizontal, false, y(r + 1), x(c), x(c + 1)) > 0.5;
  const taken: boolean[][] = Array.from({ length: rows }, () => new Array<boolean>(cols).fill(false));
  const areas: LatticeGrid["areas"] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (taken[r]?.[c]) continue;
      let colSpan = 1;
      while (c + colSpan < cols && !wallRight(r, c + colSpan - 1) && !taken[r]?.[c + colSpan]) colSpan++;
      let rowSpan = 1;
      const openBelow = (rr: number) => {
        for (let cc = c; cc < c + colSpan; cc++) if (wallBelow(rr, cc) || taken[rr + 1]?.[cc]) return false;
        return true;
      };
      while (r + rowSpan < rows && openBelow(r + rowSpan - 1)) rowSpan++;
      for (let rr = r; rr < r + rowSpan; rr++)
        for (let cc = c; cc < c + colSpan; cc++) {
          const row = taken[rr];
          if (row) row[cc] = true;
        }
      areas.push({ row: r, col: c, rowSpan, colSpan });
    }
  }
  return { columnEdges, rowEdges, areas };
}

/** Finds ruled grids: networks of crossing rulings with at least two rows or columns. */
export function latticeGrids(rulings: Rulings): LatticeGrid[] {
  const grids: LatticeGrid[] = [];
  for (const network of rulingNetworks(rulings, touchTolerance)) {
    if (network.horizontal.length < 2 && network.vertical.length < 2) continue;
    const grid = gridOf(network);
    if (grid) grids.push(grid);
  }
  return grids;
}
