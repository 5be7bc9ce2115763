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
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import ExcelJS from "exceljs";
import JSZip from "jszip";
// The layout tests' own scoring, split and CSV reader (Node runs their TypeScript as it is).
import { parseCsv } from "../../packages/layout/test/csv.ts";
import { checkingHalf, tuningHalf } from "../../packages/layout/test/icdar2013-split.ts";
import { scoreCells } from "../../packages/layout/test/table-score.ts";
import { parseCellText } from "../../packages/pdf-office/dist/index.js";
import { businessAccount, freePort, postJob, startService, stopService, untilReady } from "../support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tablesDir = join(root, "..", "shared", "corpus", "tables");
const { values } = parseArgs({ options: { documents: { type: "string" } } });

/** The truth tables of a document: the cells of each of its CSVs. */
function truthTables(document) {
  return readdirSync(tablesDir)
    .filter((name) => name.startsWith(`icdar2013_${document}.table`) && name.endsWith(".csv"))
    .map((name) => parseCsv(readFileSync(join(tablesDir, name), "utf8")).flat());
}

/**
 * A truth cell as the Excel writer stores it: the number or date parseCellText reads in it (as
 * packages/pdf-office/test/excel-corpus.test.ts compares them), else its text.
 */
function asStored(text) {
  const parsed = parseCellText(String(text).replace(/\s*\n\s*/g, " "));
  if (parsed.kind === "number") return `number:${parsed.value}`;
  if (parsed.kind === "date") return `date:${parsed.value.toISOString()}`;
  return text;
}

/** Each worksheet's cells, numbers and dates as asStored writes them; a merged area counted once. */
async function excelTables(bytes) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes);
  return workbook.worksheets.map((sheet) => {
    const cells = [];
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.isMerged && cell.master.address !== cell.address) return;
        const { value } = cell;
        if (typeof value === "number") cells.push(`number:${value}`);
        else if (value instanceof Date) cells.push(`date:${value.toISOString()}`);
        else cells.push(cell.text);
      }),
    );
    return cells;
  });
}

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
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: join(work, "data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
};
const { apiKey } = businessAccount(env, "tables-bench@example.com");
const server = startService(env);
const headers = { authorization: `Bearer ${apiKey}` };

/** Runs one conversion through the API and returns the output's bytes, or the failure's code. */
async function convert(path, file, options) {
  const id = await postJob(base, apiKey, path, [{ path: file, name: file.split("/").at(-1) }], options);
  for (;;) {
    const job = await (await fetch(`${base}/v1/jobs/${id}?wait=20`, { headers })).json();
    if (job.status === "failed") return { failed: job.error };
    if (job.status === "done") {
      const answer = await fetch(job.outputs[0].url);
      return { bytes: Buffer.from(await answer.arrayBuffer()) };
    }
  }
}

try {
  await untilReady(base);
  const documents = values.documents?.split(",") ?? [...tuningHalf, ...checkingHalf];
  const rows = [];
  for (const document of documents) {
    const file = join(tablesDir, `icdar2013_${document}.pdf`);
    const truth = truthTables(document);
    const excel = await convert("/v1/convert/pdf-to-excel", file, { mode: "tables" });
    const word = await convert("/v1/convert/pdf-to-word", file);
    const found = {
      excel: excel.bytes ? await excelTables(excel.bytes) : [],
      word: word.bytes ? await wordTables(word.bytes) : [],
    };
    truth.forEach((cells, index) => {
      const best = (tables, truthCells) =>
        Math.max(0, ...tables.map((table) => scoreCells(table, truthCells).f1));
      rows.push({
        document,
        table: index + 1,
        half: tuningHalf.includes(document) ? "tuning" : "checking",
        excel: best(found.excel, cells.map(asStored)),
        word: best(found.word, cells),
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
