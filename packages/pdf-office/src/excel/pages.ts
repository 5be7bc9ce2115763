import type { Mupdf as mupdf } from "@octavo/mupdf";
import type ExcelJS from "exceljs";
import { fitColumns, noteWidth, writeCell } from "./cells.js";
import { columnIndex, columnStarts, pageRows, pageWords } from "./words.js";

/**
 * One sheet ("Page N") with all of the page's text: a row per line of text, a column per left edge that
 * phrases of the page share, so text set out in columns lands in spreadsheet columns.
 */
export function addPageSheet(workbook: ExcelJS.Workbook, doc: mupdf.PDFDocument, index: number): number {
  const sheet = workbook.addWorksheet(`Page ${index + 1}`);
  const page = doc.loadPage(index);
  let rows: ReturnType<typeof pageRows>;
  try {
    rows = pageRows(pageWords(page));
  } finally {
    page.destroy();
  }
  const starts = columnStarts(rows);
  const widths = new Map<number, number>();
  for (const [rowIndex, row] of rows.entries()) {
    const cells = new Map<number, string>();
    for (const phrase of row) {
      const column = columnIndex(starts, phrase.x0) + 1;
      const before = cells.get(column);
      cells.set(column, before === undefined ? phrase.text : `${before} ${phrase.text}`);
    }
    for (const [column, text] of cells) {
      writeCell(sheet.getCell(rowIndex + 1, column), text);
      noteWidth(widths, column, text);
    }
  }
  fitColumns(sheet, widths);
  return rows.length;
}
