// The corpus tests' engine process (a ChildPool of @octavo/testing runs two): PDF to Word, PowerPoint,
// Excel or Markdown of one file per call, or the tables @octavo/layout finds in it as the Excel writer receives them.
// Each call starts on a fresh MuPDF instance, as a reused sandbox of the worker does: a long run of
// documents on one instance can corrupt MuPDF.js's WASM heap (see docs/engines.md).

import { readFileSync } from "node:fs";
import { analyzeDocument, tablesOf, tableToGrid } from "@octavo/layout";
import { renewMupdf } from "@octavo/mupdf";
import { answerCalls } from "@octavo/testing/child-pool";
import { pdfToExcel, pdfToMarkdown, pdfToPowerPoint, pdfToWord } from "../dist/index.js";

const converters = {
  word: pdfToWord,
  powerpoint: pdfToPowerPoint,
  excel: pdfToExcel,
  markdown: pdfToMarkdown,
};

/** Each table's page, grid (tableToGrid) and merged areas ([row, col, rowSpan, colSpan], zero-based). */
function tables(mupdf, path) {
  const doc = new mupdf.PDFDocument(readFileSync(path));
  const found = [];
  try {
    for (let index = 0; index < doc.countPages(); index += 1) {
      const page = analyzeDocument(doc, { pages: [index], images: false, tables: true }).pages[0];
      for (const table of tablesOf(page)) {
        const merges = table.cells
          .filter((cell) => cell.rowSpan > 1 || cell.colSpan > 1)
          .map((cell) => [cell.row, cell.col, cell.rowSpan, cell.colSpan]);
        found.push({ page: index, grid: tableToGrid(table), merges });
      }
    }
  } finally {
    doc.destroy();
  }
  return found;
}

/**
 * { kind: "word" | "powerpoint" | "excel" | "markdown", path, name, workDir, options? } → { result | failure, seconds };
 * { kind: "tables", path } → the tables.
 */
answerCalls(async ({ kind, path, name, workDir, options = {} }) => {
  const mupdf = await renewMupdf();
  if (kind === "tables") return tables(mupdf, path);
  const convert = converters[kind];
  if (convert === undefined) throw new Error(`unknown conversion ${kind}`);
  const started = performance.now();
  try {
    const result = await convert({ path, name }, options, { workDir });
    return { result, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    const failure = { code: error.code ?? "internal", message: String(error.message), detail: error.detail };
    return { failure, seconds: (performance.now() - started) / 1000 };
  }
});
