import type ExcelJS from "exceljs";
import { parseCellText } from "./numbers.js";

/** Writes a cell's text as what it means: a number with its format, a date, or text. */
export function writeCell(cell: ExcelJS.Cell, text: string): void {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  const parsed = parseCellText(flat);
  if (parsed.kind === "text") {
    // Keeps the cell's own line breaks, which a wrapped cell shows.
    const shown = text.trim();
    cell.value = shown;
    if (shown.includes("\n")) cell.alignment = { wrapText: true, vertical: "top" };
    return;
  }
  cell.value = parsed.value;
  if (parsed.numFmt !== undefined) cell.numFmt = parsed.numFmt;
}

/** Excel column widths are in characters of the default font; a little over the longest text, capped. */
export function fitColumns(sheet: ExcelJS.Worksheet, texts: Map<number, number>): void {
  for (const [column, longest] of texts) {
    sheet.getColumn(column).width = Math.min(60, Math.max(6, longest + 2));
  }
}

/** Remembers the longest line written to each column, for `fitColumns`. */
export function noteWidth(widths: Map<number, number>, column: number, text: string): void {
  const longest = Math.max(0, ...text.split("\n").map((line) => line.trim().length));
  widths.set(column, Math.max(widths.get(column) ?? 0, longest));
}
