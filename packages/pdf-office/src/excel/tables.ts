import type { Table } from "@octavo/layout";
import type ExcelJS from "exceljs";
import { fitColumns, noteWidth, writeCell } from "./cells.js";

/**
 * One sheet for one table: each cell at its row and column, merged areas merged, numbers and dates as
 * real values. The sheet is named "Table K", or "Page N Table K" in a document of several pages.
 */
export function addTableSheet(
  workbook: ExcelJS.Workbook,
  table: Table,
  place: { page: number; indexOnPage: number; numberInDocument: number; multiPage: boolean },
): ExcelJS.Worksheet {
  const name = place.multiPage
    ? `Page ${place.page + 1} Table ${place.indexOnPage + 1}`
    : `Table ${place.numberInDocument}`;
  const sheet = workbook.addWorksheet(name);
  const widths = new Map<number, number>();
  for (const cell of table.cells) {
    const row = cell.row + 1;
    const col = cell.col + 1;
    writeCell(sheet.getCell(row, col), cell.text);
    if (cell.colSpan === 1) noteWidth(widths, col, cell.text);
    if (cell.rowSpan > 1 || cell.colSpan > 1) {
      sheet.mergeCells(row, col, row + cell.rowSpan - 1, col + cell.colSpan - 1);
    }
  }
  fitColumns(sheet, widths);
  return sheet;
}
