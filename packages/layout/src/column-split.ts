import { type Glyph, isBlank } from "./glyphs.js";
import type { LatticeGrid } from "./lattice.js";
import { glyphRuns } from "./lines.js";

type Area = LatticeGrid["areas"][number];

/**
 * A gap wider than this (in em of the larger glyph) ends a piece of a cell's text; the same gap that
 * separates the cells of a borderless table (stream-tables' `cellGapEm`).
 */
const pieceGapEm = 1;
/** How far (points) a piece may overhang a column edge and still lie in its column. */
const edgeTolerance = 1;

/**
 * Where rulings divide a table into columns only in places (a ruled header over a body ruled in rows
 * alone), a body row is one area across the columns. Splits such an area into one per column when its
 * text falls apart into pieces, at least two columns hold one, and no piece crosses a column edge: then
 * the columns are the header's, and the row only lacks the lines. A title centred over its columns
 * (one piece) or text that runs across an edge keeps its span.
 */
export function splitUnruledColumns(grid: LatticeGrid, glyphs: Glyph[]): LatticeGrid {
  const { columnEdges, rowEdges } = grid;
  const areas = grid.areas.flatMap((area) => {
    if (area.colSpan < 2 || area.rowSpan > 1) return [area];
    const inside = glyphs.filter((g) => !isBlank(g) && within(g, area, grid));
    if (!piecesKeepToColumns(inside, columnEdges.slice(area.col, area.col + area.colSpan + 1))) return [area];
    return Array.from({ length: area.colSpan }, (_, offset) => ({
      ...area,
      col: area.col + offset,
      colSpan: 1,
    }));
  });
  return { columnEdges, rowEdges, areas };
}

function within(g: Glyph, area: Area, grid: LatticeGrid): boolean {
  const cx = (g.box.x0 + g.box.x1) / 2;
  const cy = (g.box.y0 + g.box.y1) / 2;
  const left = grid.columnEdges[area.col] ?? 0;
  const right = grid.columnEdges[area.col + area.colSpan] ?? 0;
  const top = grid.rowEdges[area.row] ?? 0;
  const bottom = grid.rowEdges[area.row + area.rowSpan] ?? 0;
  return cx >= left && cx <= right && cy >= top && cy <= bottom;
}

function piecesKeepToColumns(glyphs: Glyph[], edges: number[]): boolean {
  const inner = edges.slice(1, -1);
  const columns = new Set<number>();
  for (const { glyphs: piece } of glyphRuns(glyphs, pieceGapEm)) {
    const inked = piece.filter((g) => !isBlank(g));
    if (inked.length === 0) continue;
    const x0 = Math.min(...inked.map((g) => g.box.x0));
    const x1 = Math.max(...inked.map((g) => g.box.x1));
    if (inner.some((edge) => edge > x0 + edgeTolerance && edge < x1 - edgeTolerance)) return false;
    columns.add(inner.filter((edge) => edge <= x0 + edgeTolerance).length);
  }
  return columns.size >= 2;
}
