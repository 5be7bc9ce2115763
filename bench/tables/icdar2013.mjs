// ICDAR 2013's tables as the table benches score them (api.mjs here, bench/markdown/icdar.mjs): the corpus's
// documents in the fixed split's order with their truth tables, the cells of every worksheet of a workbook,
// and a truth table's cell-content F1 against the best output table of its document (for a workbook, the
// truth's numbers and dates put in the Excel writer's form first).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ExcelJS from "exceljs";
// The layout tests' own scoring, split and CSV reader (Node runs their TypeScript as it is).
import { parseCsv } from "../../packages/layout/test/csv.ts";
import { checkingHalf, tuningHalf } from "../../packages/layout/test/icdar2013-split.ts";
import { scoreCells } from "../../packages/layout/test/table-score.ts";
import { parseCellText } from "../../packages/pdf-office/dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tablesDir = join(root, "..", "shared", "corpus", "tables");

/**
 * The documents a `--documents eu-001,us-025` value names, else every document of the split (tuning half
 * first), each as { document, pdf, half: "tuning" | "checking", truth: truthTables(document) }.
 */
export function icdarDocuments(list) {
  return (list?.split(",") ?? [...tuningHalf, ...checkingHalf]).map((document) => ({
    document,
    pdf: join(tablesDir, `icdar2013_${document}.pdf`),
    half: tuningHalf.includes(document) ? "tuning" : "checking",
    truth: truthTables(document),
  }));
}

/** The truth tables of a document: the cells of each of its CSVs (`icdar2013_<doc>.tableN.csv`), in order. */
export function truthTables(document) {
  const prefix = `icdar2013_${document}.table`;
  return readdirSync(tablesDir)
    .filter((name) => name.startsWith(prefix) && name.endsWith(".csv"))
    .sort((a, b) => Number.parseInt(a.slice(prefix.length), 10) - Number.parseInt(b.slice(prefix.length), 10))
    .map((name) => parseCsv(readFileSync(join(tablesDir, name), "utf8")).flat());
}

/**
 * A truth cell as the Excel writer stores it: the number or date parseCellText reads in it (as
 * packages/pdf-office/test/excel-corpus.test.ts compares them), else its text.
 */
export function asStored(text) {
  const parsed = parseCellText(String(text).replace(/\s*\n\s*/g, " "));
  if (parsed.kind === "number") return `number:${parsed.value}`;
  if (parsed.kind === "date") return `date:${parsed.value.toISOString()}`;
  return text;
}

/** Each worksheet's cells, numbers and dates as asStored writes them; a merged area counted once. */
export async function excelTables(bytes) {
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

/** A truth table's cell-content F1 against the best-scoring of a document's output tables (0 for none). */
export const bestF1 = (tables, truthCells) =>
  Math.max(0, ...tables.map((table) => scoreCells(table, truthCells).f1));

/** bestF1 against a workbook's sheets (excelTables), the truth's cells as the Excel writer stores them. */
export const bestExcelF1 = (sheets, truthCells) => bestF1(sheets, truthCells.map(asStored));
