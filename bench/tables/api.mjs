#!/usr/bin/env node
// Tables through the API, as a customer meets them: every ICDAR 2013 document of the corpus (64 PDFs, 146
// tables) converted by a running service (`octavo start`, as `npm start` runs it) with PDF to Excel in tables
// mode and with PDF to Word, each output downloaded from its link and read back: every sheet of the workbook
// and every table of the Word document. Each truth table (its `icdar2013_<doc>.tableN.csv`, the competition's
// cells) is scored with the cell-content F1 of packages/layout/test/table-score.ts against the document's
// best-matching output table, then the mean is taken per half of the fixed split (icdar2013-split.ts). Both
// outputs come from @octavo/layout's one detector, so their figures should agree with
// `pnpm exec vitest run packages/layout/test/icdar2013.test.ts`, which scores it directly (page by page there,
// document-wide here: an output table does not say which page it came from).
//
//   pnpm exec turbo run build
//   node bench/tables/api.mjs [--documents eu-001,us-025] > /tmp/tables-api.md
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import JSZip from "jszip";
import { finishedJob, postJob, serviceWithAccount, stopService, untilReady } from "../support.mjs";
import { bestExcelF1, bestF1, excelTables, icdarDocuments } from "./icdar2013.mjs";

const { values } = parseArgs({ options: { documents: { type: "string" } } });

/** Each table of a Word document as its cells' texts (our writer's w:tbl, never nested). */
async function wordTables(bytes) {
  const xml = await (await JSZip.loadAsync(bytes)).file("word/document.xml").async("string");
  const decode = (s) =>
    s
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&");
  return [...xml.matchAll(/<w:tbl>([\s\S]*?)<\/w:tbl>/g)].map(([, table]) =>
    [...table.matchAll(/<w:tc>([\s\S]*?)<\/w:tc>/g)].map(([, cell]) =>
      [...cell.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map(([, text]) => decode(text)).join(" "),
    ),
  );
}

const work = mkdtempSync(join(tmpdir(), "octavo-bench-tables-"));
const { base, apiKey, server } = await serviceWithAccount(join(work, "data"), "tables-bench@example.com");

/** Runs one conversion through the API and returns the output's bytes, or the failure's code. */
async function convert(path, file, options) {
  const id = await postJob(base, apiKey, path, [{ path: file, name: file.split("/").at(-1) }], options);
  const job = await finishedJob(base, apiKey, id);
  if (job.status === "failed") return { failed: job.error };
  const answer = await fetch(job.outputs[0].url);
  return { bytes: Buffer.from(await answer.arrayBuffer()) };
}

try {
  await untilReady(base);
  const documents = icdarDocuments(values.documents);
  const rows = [];
  for (const { document, pdf, half, truth } of documents) {
    const excel = await convert("/v1/convert/pdf-to-excel", pdf, { mode: "tables" });
    const word = await convert("/v1/convert/pdf-to-word", pdf);
    const found = {
      excel: excel.bytes ? await excelTables(excel.bytes) : [],
      word: word.bytes ? await wordTables(word.bytes) : [],
    };
    truth.forEach((cells, index) => {
      rows.push({
        document,
        table: index + 1,
        half,
        excel: bestExcelF1(found.excel, cells),
        word: bestF1(found.word, cells),
        excelFailed: excel.failed,
      });
    });
    process.stderr.write(
      `${document}: ${truth.length} tables, ${found.excel.length} sheets, ${found.word.length} Word tables${excel.failed ? ` (Excel: ${excel.failed})` : ""}\n`,
    );
  }
  const pct = (v) => (v * 100).toFixed(1);
  console.log("| table | half | Excel F1 % | Word F1 % |\n|---|---|---|---|");
  for (const r of rows)
    console.log(
      `| ${r.document} #${r.table} | ${r.half} | ${r.excelFailed ? r.excelFailed : pct(r.excel)} | ${pct(r.word)} |`,
    );
  const mean = (list, key) => list.reduce((s, r) => s + r[key], 0) / Math.max(1, list.length);
  for (const half of ["all", "tuning", "checking"]) {
    const list = half === "all" ? rows : rows.filter((r) => r.half === half);
    console.log(
      `${half}: ${list.length} tables, mean F1 Excel ${pct(mean(list, "excel"))} %, Word ${pct(mean(list, "word"))} %`,
    );
  }
} finally {
  await stopService(server);
  rmSync(work, { recursive: true, force: true });
}
