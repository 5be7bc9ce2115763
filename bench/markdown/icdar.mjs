#!/usr/bin/env node
// ICDAR 2013's tables through PDF to Markdown, beside PDF to Excel: every ICDAR 2013 document of the corpus
// (../shared/corpus/tables/icdar2013_*.pdf, 64 PDFs, 146 tables) converted in-process, each conversion in a
// fresh work directory, with PDF to Markdown (format "markdown", the API's defaults otherwise) and with PDF
// to Excel in tables mode. Every table is read back out of the Markdown (GFM pipe tables and HTML tables with
// spans, read-markdown.mjs) and every worksheet out of the workbook (exceljs, by bench/tables/icdar2013.mjs,
// as bench/tables/api.mjs reads it: numbers and dates as typed values, a merged area once). Each truth table
// (`icdar2013_<doc>.tableN.csv`) is scored with the cell-content F1 of packages/layout/test/table-score.ts
// against the document's best-scoring output table, as api.mjs does (the truth's numbers and dates put in the
// Excel writer's form for the workbook, its texts as they are for the Markdown). Means per half of the fixed
// split (icdar2013-split.ts) and overall, and Markdown − Excel (goal: Markdown within 1 point of Excel; both
// come from @octavo/layout's one detector).
//
//   pnpm exec turbo run build
//   node bench/markdown/icdar.mjs [--documents eu-001,us-025] [--json /tmp/markdown-icdar.json] > /tmp/markdown-icdar.md
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pdfToExcel } from "../../packages/pdf-office/dist/index.js";
import { bestExcelF1, bestF1, excelTables, icdarDocuments } from "../tables/icdar2013.mjs";
import { loadMarkdownEngine, runEngine } from "./engine.mjs";
import { readMarkdownTables } from "./read-markdown.mjs";
import { cellTexts, markdownTable, mean, pct } from "./score.mjs";

const { values } = parseArgs({ options: { documents: { type: "string" }, json: { type: "string" } } });

const engine = await loadMarkdownEngine();
const documents = icdarDocuments(values.documents);
const rows = [];
const documentRows = [];
for (const { document, pdf, half, truth } of documents) {
  const markdown = await runEngine(engine, pdf, { format: "markdown" });
  const excel = await runEngine(pdfToExcel, pdf, { mode: "tables" });
  const markdownFound = markdown.text ? readMarkdownTables(markdown.text).map(cellTexts) : [];
  const excelFound = excel.bytes ? await excelTables(excel.bytes) : [];
  truth.forEach((cells, index) => {
    rows.push({
      document,
      table: index + 1,
      half,
      markdown: bestF1(markdownFound, cells),
      excel: bestExcelF1(excelFound, cells),
    });
  });
  documentRows.push({
    document,
    truthTables: truth.length,
    markdownTables: markdownFound.length,
    htmlTables: markdown.text ? readMarkdownTables(markdown.text).filter((t) => t.kind === "html").length : 0,
    sheets: excelFound.length,
    markdownSeconds: markdown.seconds ?? 0,
    excelSeconds: excel.seconds ?? 0,
    error: [markdown.error && `Markdown: ${markdown.error}`, excel.error && `Excel: ${excel.error}`]
      .filter(Boolean)
      .join("; "),
  });
  process.stderr.write(
    `${document}: ${truth.length} tables, ${markdownFound.length} in the Markdown, ${excelFound.length} sheets\n`,
  );
}

const summary = (list) => {
  const md = mean(list.map((r) => r.markdown));
  const xl = mean(list.map((r) => r.excel));
  return {
    tables: list.length,
    markdown: md,
    excel: xl,
    difference: md === null || xl === null ? null : md - xl,
  };
};
const halves = {
  all: summary(rows),
  tuning: summary(rows.filter((r) => r.half === "tuning")),
  checking: summary(rows.filter((r) => r.half === "checking")),
};
const signed = (v) => (v === null ? "–" : `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)}`);
console.log(`# ICDAR 2013 tables through PDF to Markdown and PDF to Excel (${documents.length} documents)\n`);
console.log(
  markdownTable(
    ["half", "tables", "Markdown F1 %", "Excel F1 %", "Markdown − Excel (points; goal ≥ −1)"],
    Object.entries(halves).map(([half, s]) => [
      half,
      s.tables,
      pct(s.markdown),
      pct(s.excel),
      signed(s.difference),
    ]),
  ),
);
const apart = rows.filter((r) => Math.abs(r.markdown - r.excel) >= 0.05);
console.log(`\n## Tables where Markdown and Excel differ by ≥ 5 points (${apart.length})\n`);
console.log(
  markdownTable(
    ["table", "half", "Markdown F1 %", "Excel F1 %"],
    apart.map((r) => [`${r.document} #${r.table}`, r.half, pct(r.markdown), pct(r.excel)]),
  ),
);
console.log("\n## Per table\n");
console.log(
  markdownTable(
    ["table", "half", "Markdown F1 %", "Excel F1 %"],
    rows.map((r) => [`${r.document} #${r.table}`, r.half, pct(r.markdown), pct(r.excel)]),
  ),
);
console.log("\n## Per document\n");
console.log(
  markdownTable(
    [
      "document",
      "truth tables",
      "Markdown tables",
      "of which HTML",
      "sheets",
      "Markdown s",
      "Excel s",
      "error",
    ],
    documentRows.map((d) => [
      d.document,
      d.truthTables,
      d.markdownTables,
      d.htmlTables,
      d.sheets,
      d.markdownSeconds.toFixed(1),
      d.excelSeconds.toFixed(1),
      d.error,
    ]),
  ),
);
if (values.json)
  writeFileSync(values.json, JSON.stringify({ halves, tables: rows, documents: documentRows }, null, 2));
