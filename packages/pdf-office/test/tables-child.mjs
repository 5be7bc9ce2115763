// Prints the tables @octavo/layout finds in a PDF, as the Excel writer receives them, as JSON: for each
// table its page, its grid (tableToGrid) and its merged areas. Runs in a child process for the same
// reason as convert-child.mjs (MuPDF.js's heap over a long run of documents).
//
//   node tables-child.mjs <path>
import { readFileSync } from "node:fs";
import { analyzeDocument, tablesOf, tableToGrid } from "@octavo/layout";
import { loadMupdf } from "@octavo/mupdf";

const mupdf = await loadMupdf();

const [path] = process.argv.slice(2);
const doc = new mupdf.PDFDocument(readFileSync(path));
const tables = [];
try {
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = analyzeDocument(doc, { pages: [index], images: false, tables: true }).pages[0];
    for (const table of tablesOf(page)) {
      const merges = table.cells
        .filter((cell) => cell.rowSpan > 1 || cell.colSpan > 1)
        .map((cell) => [cell.row, cell.col, cell.rowSpan, cell.colSpan]);
      tables.push({ page: index, grid: tableToGrid(table), merges });
    }
  }
} finally {
  doc.destroy();
}
process.stdout.write(JSON.stringify(tables));
