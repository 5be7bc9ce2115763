import type { DocumentLayout, PageLayout, Table } from "./types.js";

/** Every table of a document or page, in reading order. */
export function tablesOf(layout: DocumentLayout | PageLayout): Table[] {
  const pages = "pages" in layout ? layout.pages : [layout];
  return pages.flatMap((p) => p.blocks.filter((b): b is Table => b.kind === "table"));
}

/** The table as a rectangular grid of strings: a merged cell's text sits at its top-left position. */
export function tableToGrid(table: Table): string[][] {
  const rows = Math.max(0, table.rowEdges.length - 1);
  const cols = Math.max(0, table.columnEdges.length - 1);
  const grid = Array.from({ length: rows }, () => new Array<string>(cols).fill(""));
  for (const cell of table.cells) {
    const row = grid[cell.row];
    if (row && cell.col < cols) row[cell.col] = cell.text;
  }
  return grid;
}
