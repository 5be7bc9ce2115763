import { areaText, joined, type Piece, piecesByLine, spansKeepToColumns } from "./column-split.js";
import type { Glyph } from "./glyphs.js";
import type { LatticeGrid } from "./lattice.js";

type Area = LatticeGrid["areas"][number];

/**
 * Where a group's name sits over its columns' labels in one ruled cell ("Number of Features" over
 * "2 3 4 5 6"), the gap under the name, or undefined: the area spans several columns, its first line
 * has fewer pieces than its last, and the last line's pieces keep to the columns.
 */
function cutUnderName(area: Area, lines: Piece[][], columnEdges: number[]): number | undefined {
  const [first, second] = lines;
  const last = lines.at(-1);
  if (area.colSpan < 2 || area.rowSpan > 1 || !first || !second || !last) return undefined;
  if (joined(first).length >= joined(last).length) return undefined;
  if (!spansKeepToColumns(last, columnEdges.slice(area.col, area.col + area.colSpan + 1))) return undefined;
  const bottom = Math.max(...first.map((p) => p.y1));
  const top = Math.min(...second.map((p) => p.y0));
  return top > bottom ? (bottom + top) / 2 : undefined;
}

/**
 * Splits each ruled band holding a group's header in two at the gap under the group's name: the name
 * keeps its span above, the labels under it become an area of their own (to be cut into columns),
 * and the band's other areas span both rows.
 */
export function splitGroupHeaders(grid: LatticeGrid, glyphs: Glyph[]): LatticeGrid {
  const { columnEdges, rowEdges } = grid;
  const textOf = areaText(glyphs, rowEdges);
  const cuts = new Map<number, number>();
  const groups = new Set<Area>();
  for (const area of grid.areas) {
    const cut = cutUnderName(area, piecesByLine(textOf(area, grid)), columnEdges);
    if (cut === undefined) continue;
    groups.add(area);
    if (!cuts.has(area.row)) cuts.set(area.row, cut);
  }
  if (!cuts.size) return grid;
  const newEdges: number[] = [];
  // shift[k]: where old edge k lands among the new edges.
  const shift: number[] = [];
  rowEdges.forEach((edge, k) => {
    shift.push(newEdges.length);
    newEdges.push(edge);
    const cut = cuts.get(k);
    if (cut !== undefined) newEdges.push(cut);
  });
  const areas = grid.areas.flatMap((a): Area[] => {
    const row = shift[a.row] ?? a.row;
    const rowSpan = (shift[a.row + a.rowSpan] ?? row + a.rowSpan) - row;
    if (!groups.has(a)) return [{ ...a, row, rowSpan }];
    return [
      { ...a, row, rowSpan: 1 },
      { ...a, row: row + 1, rowSpan: rowSpan - 1 },
    ];
  });
  return { columnEdges, rowEdges: newEdges, areas };
}
