import type { MarkdownTableCell } from "@octavo/contracts/markdown-document";
import type { Draft } from "./draft.js";

/** Blocks between a table's end on one page and its rest on the next: running heads and notes. */
const betweenPages = new Set(["header", "footer", "footnote"]);
/** Column edges of one table on two pages agree within this share of its width. */
const edgeTolerance = 0.02;

/**
 * The table that `next` continues, when a page break cut one table in two: the last block of the page
 * before (past its running heads and notes) is a table with the same columns at the same places, and
 * `next` is the first block of its page.
 */
export function continuedTable(out: Draft[], next: Draft): Draft | undefined {
  if (next.element.type !== "table" || next.columnEdges === undefined) return undefined;
  for (let index = out.length - 1; index >= 0; index -= 1) {
    const candidate = out[index] as Draft;
    if (betweenPages.has(candidate.element.type)) continue;
    if (candidate.element.type !== "table" || candidate.pageIndex + 1 !== next.pageIndex) return undefined;
    return sameColumns(candidate.columnEdges, next.columnEdges) ? candidate : undefined;
  }
  return undefined;
}

function sameColumns(a: number[] | undefined, b: number[]): boolean {
  if (a === undefined || a.length !== b.length || a.length < 3) return false;
  const width = Math.max((a[a.length - 1] ?? 0) - (a[0] ?? 0), 1);
  return a.every((edge, index) => Math.abs(edge - (b[index] ?? Number.NaN)) <= edgeTolerance * width);
}

/** Appends the rows of `rest` to `table`, leaving out a header row the page repeated. */
export function appendTableRows(table: Draft, rest: Draft): void {
  const cells = table.element.cells ?? [];
  const restCells = rest.element.cells ?? [];
  const skip = sameTexts(rowOf(cells, 0), rowOf(restCells, 0)) ? 1 : 0;
  const offset = (table.element.rows ?? 0) - skip;
  for (const cell of restCells) if (cell.row >= skip) cells.push({ ...cell, row: cell.row + offset });
  table.element.cells = cells;
  table.element.rows = offset + (rest.element.rows ?? 0);
  const restLines = rest.element.text.split("\n").slice(skip);
  table.element.text = [table.element.text, ...restLines].join("\n");
  table.links.push(...rest.links);
  // It goes on to the next page's first table in turn; its element keeps the page it starts on.
  table.pageIndex = rest.pageIndex;
}

function rowOf(cells: MarkdownTableCell[], row: number): string[] {
  return cells.filter((cell) => cell.row === row).map((cell) => cell.text);
}

function sameTexts(a: string[], b: string[]): boolean {
  return (
    a.length > 0 &&
    a.length === b.length &&
    a.some((text) => text !== "") &&
    a.every((text, i) => text === b[i])
  );
}
