import { clearStrips, type Span, type StripRule } from "./clear-strips.js";
import { type Glyph, isBlank } from "./glyphs.js";
import type { LatticeGrid } from "./lattice.js";
import { glyphRuns } from "./lines.js";
import { listMarker } from "./list-markers.js";

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
  const textOf = areaText(glyphs, rowEdges);
  const areas = grid.areas.flatMap((area) => {
    if (area.colSpan < 2 || area.rowSpan > 1) return [area];
    const inside = textOf(area, grid);
    if (!piecesKeepToColumns(inside, columnEdges.slice(area.col, area.col + area.colSpan + 1))) return [area];
    return Array.from({ length: area.colSpan }, (_, offset) => ({
      ...area,
      col: area.col + offset,
      colSpan: 1,
    }));
  });
  return { columnEdges, rowEdges, areas };
}

/** The inked glyphs inside an area of a grid, in the order of the page's glyphs. */
export type AreaText = (area: Area, grid: LatticeGrid) => Glyph[];

/**
 * Looks glyphs up by row band rather than through the whole page for every area (forms have hundreds
 * of areas): the grids these functions build differ in their columns only, never in their rows.
 */
export function areaText(glyphs: Glyph[], rowEdges: number[]): AreaText {
  const inked = glyphs.filter((g) => !isBlank(g));
  const bands: number[][] = rowEdges.slice(1).map(() => []);
  inked.forEach((g, i) => {
    const cy = (g.box.y0 + g.box.y1) / 2;
    // The first band reaching down to cy, then each band it lies in (two, on a shared edge).
    let r = firstAtLeast(bands.length, (band) => (rowEdges[band + 1] ?? 0) >= cy);
    for (; r < bands.length && (rowEdges[r] ?? 0) <= cy; r++)
      if (cy <= (rowEdges[r + 1] ?? 0)) bands[r]?.push(i);
  });
  return (area, grid) => {
    const ids = bands.slice(area.row, area.row + area.rowSpan);
    const sorted = ids.length === 1 ? (ids[0] ?? []) : [...new Set(ids.flat())].sort((a, b) => a - b);
    return sorted.map((i) => inked[i] as Glyph).filter((g) => within(g, area, grid));
  };
}

/** The first index in 0..length at which `atLeast` holds (it must hold from some index on). */
function firstAtLeast(length: number, atLeast: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (atLeast(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
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
  return spansKeepToColumns(piecesOf(glyphs), edges);
}

/** Whether no span crosses an inner edge, and the spans lie in two columns or more. */
export function spansKeepToColumns(spans: Span[], edges: number[]): boolean {
  const inner = edges.slice(1, -1);
  const columns = new Set<number>();
  for (const { x0, x1 } of spans) {
    if (inner.some((edge) => edge > x0 + edgeTolerance && edge < x1 - edgeTolerance)) return false;
    columns.add(inner.filter((edge) => edge <= x0 + edgeTolerance).length);
  }
  return columns.size >= 2;
}

/**
 * A gap between unruled sub-columns: at least 4 pt wide; text of at most 20 % of the column's rows runs
 * across it (a header over its sub-columns), and at least 40 % (two rows at least) have text on each side.
 */
const subColumnGap: StripRule = { minWidth: 4, maxAcrossShare: 0.2, minBesideShare: 0.4, minBesideRows: 2 };

/**
 * Where a ruled column holds two columns of text without a line between them (a ruled group over
 * unruled sub-columns), adds the edge between them, at a strip of the column its rows' text keeps
 * clear of as `subColumnGap` asks. An area whose text runs across the new edge spans both new columns.
 */
export function addUnruledColumns(grid: LatticeGrid, glyphs: Glyph[]): LatticeGrid {
  let current = grid;
  const textOf = areaText(glyphs, grid.rowEdges);
  // Right to left, so that an added edge does not move the columns still to be looked at.
  for (let col = grid.columnEdges.length - 2; col >= 0; col -= 1) {
    for (const edge of gapsIn(current, col, textOf).reverse()) current = withEdge(current, col, edge, textOf);
  }
  return current;
}

/** The x positions of the gaps found in column `col`, left to right. */
function gapsIn(grid: LatticeGrid, col: number, textOf: AreaText): number[] {
  const left = grid.columnEdges[col] ?? 0;
  const right = grid.columnEdges[col + 1] ?? 0;
  // Areas spanning into neighbouring columns count too, by their pieces that reach into this one: a
  // body row ruled only above and below spans the columns a ruled header divides.
  const rows = grid.areas
    .filter((area) => area.col <= col && area.col + area.colSpan > col)
    .flatMap((area) => rowsOfArea(textOf(area, grid)))
    .map((pieces) => pieces.filter((piece) => piece.x1 > left && piece.x0 < right))
    .filter((pieces) => pieces.length > 0);
  // A strip with only list markers left of it parts bullets from their text, not two columns.
  return clearStrips(rows, left, right, subColumnGap).filter((strip, i, strips) => {
    const from = strips[i - 1] ?? left;
    const before = rows.flat().filter((piece) => piece.x0 >= from && piece.x1 <= strip);
    return !before.every((piece) => listMarker.test(piece.text));
  });
}

/**
 * An area's pieces as one row; or, when its first line has fewer pieces than its last, its lines
 * under the first: groups' names centred over their sub-columns' labels say where the groups are,
 * not where the sub-columns part.
 */
function rowsOfArea(glyphs: Glyph[]): Piece[][] {
  const lines = piecesByLine(glyphs);
  const first = lines[0];
  const last = lines.at(-1);
  if (first && last && joined(first).length < joined(last).length) return lines.slice(1);
  return [lines.flat()];
}

export interface Piece extends Span {
  text: string;
  y0: number;
  y1: number;
  baseline: number;
  size: number;
}

/** The pieces of an area's text: its runs of glyphs with no gap of a piece's between them. */
function piecesWithLines(glyphs: Glyph[]): Piece[] {
  return glyphRuns(glyphs, pieceGapEm)
    .map(({ glyphs: piece }) => piece.filter((g) => !isBlank(g)))
    .filter((inked) => inked.length > 0)
    .map((inked) => ({
      text: inked.map((g) => g.c).join(""),
      x0: Math.min(...inked.map((g) => g.box.x0)),
      x1: Math.max(...inked.map((g) => g.box.x1)),
      y0: Math.min(...inked.map((g) => g.box.y0)),
      y1: Math.max(...inked.map((g) => g.box.y1)),
      baseline: inked[0]?.baseline ?? 0,
      size: inked[0]?.size ?? 0,
    }));
}

function piecesOf(glyphs: Glyph[]): Span[] {
  return piecesWithLines(glyphs).map(({ x0, x1 }) => ({ x0, x1 }));
}

/** The pieces of an area's text grouped into lines by baseline, top to bottom. */
export function piecesByLine(glyphs: Glyph[]): Piece[][] {
  const lines: Piece[][] = [];
  for (const piece of piecesWithLines(glyphs).sort((a, b) => a.baseline - b.baseline)) {
    const line = lines.at(-1);
    const first = line?.[0];
    if (line && first && piece.baseline - first.baseline < 0.5 * Math.min(piece.size, first.size))
      line.push(piece);
    else lines.push([piece]);
  }
  return lines;
}

/** A line's pieces with those MuPDF put in different lines (an arrow after a label) joined. */
export function joined(line: Piece[]): Span[] {
  const spans: Span[] = [];
  for (const piece of [...line].sort((a, b) => a.x0 - b.x0)) {
    const last = spans.at(-1);
    if (last && piece.x0 - last.x1 <= pieceGapEm * piece.size) last.x1 = Math.max(last.x1, piece.x1);
    else spans.push({ x0: piece.x0, x1: piece.x1 });
  }
  return spans;
}

/** The grid with an edge at `x` inside column `col`; areas right of it move one column right. */
function withEdge(grid: LatticeGrid, col: number, x: number, textOf: AreaText): LatticeGrid {
  const columnEdges = [...grid.columnEdges.slice(0, col + 1), x, ...grid.columnEdges.slice(col + 1)];
  const areas = grid.areas.flatMap((area): Area[] => {
    if (area.col > col) return [{ ...area, col: area.col + 1 }];
    if (area.col + area.colSpan <= col) return [area];
    if (area.colSpan > 1) return [{ ...area, colSpan: area.colSpan + 1 }];
    const crosses = piecesOf(textOf(area, grid)).some((piece) => piece.x0 < x && piece.x1 > x);
    if (crosses) return [{ ...area, colSpan: 2 }];
    return [area, { ...area, col: col + 1 }];
  });
  return { columnEdges, rowEdges: grid.rowEdges, areas };
}
