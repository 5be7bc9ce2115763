import { roundBox, unionBoxes } from "./geometry.js";
import { type Glyph, isBlank } from "./glyphs.js";
import { glyphRuns, lineText, mergeSameBaseline, toTextLine } from "./lines.js";
import { buildParagraphs } from "./paragraphs.js";
import { absorbScripts } from "./scripts.js";
import type { Box, Table, TableCell } from "./types.js";

export interface GridArea {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

/** The index of the interval of `edges` that holds `v` (the first or last, beyond them). */
export function indexIn(edges: number[], v: number): number {
  for (let i = 0; i < edges.length - 1; i++) if (v < (edges[i + 1] ?? 0)) return i;
  return edges.length - 2;
}

/** For each grid position, the index of the area covering it (-1: none; areas never overlap). */
export function areaOwners(areas: GridArea[], rows: number, cols: number): number[][] {
  const owner: number[][] = Array.from({ length: rows }, () => new Array<number>(cols).fill(-1));
  areas.forEach((a, i) => {
    for (let r = a.row; r < a.row + a.rowSpan; r++)
      for (let c = a.col; c < a.col + a.colSpan; c++) {
        const row = owner[r];
        if (row) row[c] = i;
      }
  });
  return owner;
}

/** The text and paragraphs of one cell's glyphs. */
function cellContent(glyphs: Glyph[], box: Box, bodySize: number): Pick<TableCell, "text" | "paragraphs"> {
  if (!glyphs.length) return { text: "", paragraphs: [] };
  // Exponents and indices ride on their figure ("3.42 × 10⁻¹"), not on a line of their own above it.
  const lines = mergeSameBaseline(
    absorbScripts(glyphRuns(glyphs, 4).map((r) => r.glyphs)).map(toTextLine),
    4,
  );
  return {
    text: lines
      .map(lineText)
      .filter((t) => t !== "")
      .join("\n"),
    paragraphs: buildParagraphs(lines, box, bodySize),
  };
}

/**
 * Glyphs grouped into words: inked glyphs that touch each other on one MuPDF line with no space
 * between; each blank on its own. A word goes to one cell whole, so a label that overhangs a
 * ruling ("Hydrogr" | "aphy") is not cut in two.
 */
export function wordsOf(glyphs: Glyph[]): Glyph[][] {
  const words: Glyph[][] = [];
  let word: Glyph[] = [];
  let last: Glyph | undefined;
  for (const g of glyphs) {
    const joins =
      last !== undefined &&
      !isBlank(g) &&
      !isBlank(last) &&
      g.line === last.line &&
      Math.abs(g.box.x0 - last.box.x1) < 0.1 * Math.max(g.size, last.size);
    if (!joins && word.length) {
      words.push(word);
      word = [];
    }
    word.push(g);
    last = g;
  }
  if (word.length) words.push(word);
  return words;
}

/**
 * Builds a table from its grid: each glyph whose centre lies inside the grid goes to the area
 * holding that grid position. Returns the table and the glyphs it took.
 */
export function pourIntoGrid(
  glyphs: Glyph[],
  columnEdges: number[],
  rowEdges: number[],
  areas: GridArea[],
  ruled: boolean,
  bodySize: number,
): { table: Table; taken: Set<Glyph> } {
  const rows = rowEdges.length - 1;
  const cols = columnEdges.length - 1;
  const owner = areaOwners(areas, rows, cols);
  const box: Box = {
    x0: columnEdges[0] ?? 0,
    y0: rowEdges[0] ?? 0,
    x1: columnEdges[cols] ?? 0,
    y1: rowEdges[rows] ?? 0,
  };
  const perArea: Glyph[][] = areas.map(() => []);
  const taken = new Set<Glyph>();
  for (const word of wordsOf(glyphs)) {
    const { x0, y0, x1, y1 } = unionBoxes(word.map((g) => g.box));
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    if (cx < box.x0 || cx > box.x1 || cy < box.y0 || cy > box.y1) continue;
    const area = owner[indexIn(rowEdges, cy)]?.[indexIn(columnEdges, cx)] ?? -1;
    for (const g of word) {
      perArea[area]?.push(g);
      taken.add(g);
    }
  }
  const cells: TableCell[] = areas.map((a, i) => {
    const cellBox: Box = {
      x0: columnEdges[a.col] ?? 0,
      y0: rowEdges[a.row] ?? 0,
      x1: columnEdges[a.col + a.colSpan] ?? 0,
      y1: rowEdges[a.row + a.rowSpan] ?? 0,
    };
    return { ...a, box: roundBox(cellBox), ...cellContent(perArea[i] ?? [], cellBox, bodySize) };
  });
  return {
    table: { kind: "table", box: roundBox(box), ruled, columnEdges, rowEdges, cells },
    taken,
  };
}

export function filledShare(table: Table): number {
  const filled = table.cells.filter((c) => c.text !== "").length;
  return filled / Math.max(1, table.cells.length);
}
