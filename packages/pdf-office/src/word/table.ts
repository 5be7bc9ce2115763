import type { TableCell as LayoutCell, Table as LayoutTable } from "@octavo/layout";
import {
  BorderStyle,
  Paragraph,
  Table,
  TableCell,
  TableLayoutType,
  TableRow,
  VerticalAlign,
  WidthType,
} from "docx";
import { twips, wordParagraph } from "./paragraph.js";

const noBorder = { style: BorderStyle.NONE, size: 0, color: "FFFFFF" } as const;
const noBorders = {
  top: noBorder,
  bottom: noBorder,
  left: noBorder,
  right: noBorder,
  insideHorizontal: noBorder,
  insideVertical: noBorder,
} as const;
const thinLine = { style: BorderStyle.SINGLE, size: 4, color: "000000" } as const;
const ruledBorders = {
  top: thinLine,
  bottom: thinLine,
  left: thinLine,
  right: thinLine,
  insideHorizontal: thinLine,
  insideVertical: thinLine,
} as const;

/**
 * A real Word table: the layout's grid as w:tblGrid column widths, merged areas as gridSpan (columns) and
 * vMerge (rows; docx inserts the continuation cells), and borders only when the PDF drew rulings.
 */
export function wordTable(table: LayoutTable, left: number, ocr: boolean): Table {
  const widths = columnWidths(table);
  const rows: TableRow[] = [];
  const rowCount = table.rowEdges.length - 1;
  for (let row = 0; row < rowCount; row += 1) {
    const cells = table.cells.filter((cell) => cell.row === row).sort((a, b) => a.col - b.col);
    rows.push(new TableRow({ children: cells.map((cell) => wordCell(cell, widths, ocr)) }));
  }
  return new Table({
    rows,
    columnWidths: widths,
    width: { size: widths.reduce((sum, width) => sum + width, 0), type: WidthType.DXA },
    layout: TableLayoutType.FIXED,
    // Word's default cell padding (0.08 in each side) would wrap text that fits the PDF's cells.
    margins: { top: 0, bottom: 0, left: 29, right: 29 },
    indent: { size: twips(Math.max(0, table.box.x0 - left)), type: WidthType.DXA },
    borders: table.ruled ? ruledBorders : noBorders,
  });
}

function columnWidths(table: LayoutTable): number[] {
  const widths: number[] = [];
  for (let col = 0; col + 1 < table.columnEdges.length; col += 1) {
    const width = (table.columnEdges[col + 1] ?? 0) - (table.columnEdges[col] ?? 0);
    widths.push(twips(Math.max(6, width)));
  }
  return widths;
}

function wordCell(cell: LayoutCell, widths: number[], ocr: boolean): TableCell {
  const width = widths.slice(cell.col, cell.col + cell.colSpan).reduce((sum, value) => sum + value, 0);
  const paragraphs = cell.paragraphs.map((paragraph, index) =>
    wordParagraph(paragraph, { left: paragraph.box.x0, first: index === 0, ocr }),
  );
  // Every Word cell needs a paragraph, and a cell the layout found no paragraphs in may still have text.
  const children =
    paragraphs.length > 0 ? paragraphs : [new Paragraph({ text: cell.text.replaceAll("\n", " ") })];
  return new TableCell({
    children,
    width: { size: width, type: WidthType.DXA },
    verticalAlign: VerticalAlign.TOP,
    ...(cell.colSpan > 1 ? { columnSpan: cell.colSpan } : {}),
    ...(cell.rowSpan > 1 ? { rowSpan: cell.rowSpan } : {}),
  });
}
