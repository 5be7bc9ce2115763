// The Excel writer's fidelity on every born-digital PDF of corpus/tables: each sheet holds exactly its
// table's grid (layout's tableToGrid) cell for cell, numbers and dates as the values parseCellText gives,
// and its merged areas exactly the table's spans. Conversions and layout run in two engine processes.
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { ChildPool } from "@octavo/testing";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCellText } from "../src/index.js";
import { cleanup, corpusPath, workDir } from "./helpers.js";
import { bornDigitalCorpus } from "./office-text.js";

/** Two engine processes: the machine has two cores. */
const engines = new ChildPool<Record<string, unknown>, unknown>(
  fileURLToPath(new URL("./engine-child.mjs", import.meta.url)),
  { size: 2, callsPerChild: 50 },
);

interface LayoutTable {
  page: number;
  grid: string[][];
  /** [row, col, rowSpan, colSpan], zero-based. */
  merges: [number, number, number, number][];
}

interface FileOutcome {
  file: string;
  tables: LayoutTable[];
  /** The workbook, or the failure's code. */
  workbook: ExcelJS.Workbook | string;
}

async function convertTables(file: string): Promise<FileOutcome> {
  const tables = (await engines.call({ kind: "tables", path: corpusPath(file) })) as LayoutTable[];
  const jobDir = await workDir();
  try {
    const answer = (await engines.call({
      kind: "excel",
      path: corpusPath(file),
      name: basename(file),
      workDir: jobDir,
      options: { mode: "tables" },
    })) as { result?: { outputs: { path: string }[] }; failure?: { code: string } };
    if (answer.failure) return { file, tables, workbook: answer.failure.code };
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(answer.result?.outputs[0]?.path ?? "");
    return { file, tables, workbook };
  } finally {
    await cleanup(jobDir);
  }
}

/** What the writer must have put in a cell for the grid's text: its value, or undefined for none. */
function expectedValue(text: string): string | number | undefined {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  if (flat === "") return undefined;
  const parsed = parseCellText(flat);
  if (parsed.kind === "number") return parsed.value;
  if (parsed.kind === "date") return parsed.value.toISOString();
  return text.trim();
}

function actualValue(cell: ExcelJS.Cell): string | number | undefined {
  // Positions inside a merged area other than its top-left report the top-left's value.
  if (cell.isMerged && cell.master.address !== cell.address) return undefined;
  const value = cell.value;
  if (value === null || value === undefined || value === "") return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number" || typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Non-empty cells as "R,C" → value. */
function sheetCells(sheet: ExcelJS.Worksheet): Map<string, string | number> {
  const cells = new Map<string, string | number>();
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
      const value = actualValue(cell);
      if (value !== undefined) cells.set(`${rowNumber - 1},${colNumber - 1}`, value);
    });
  });
  return cells;
}

function gridCells(grid: string[][]): Map<string, string | number> {
  const cells = new Map<string, string | number>();
  grid.forEach((row, r) => {
    row.forEach((text, c) => {
      const value = expectedValue(text);
      if (value !== undefined) cells.set(`${r},${c}`, value);
    });
  });
  return cells;
}

function mergeRanges(sheet: ExcelJS.Worksheet): string[] {
  return [...((sheet.model as { merges?: string[] }).merges ?? [])].sort();
}

function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function tableMerges(merges: LayoutTable["merges"]): string[] {
  return merges
    .map(
      ([row, col, rowSpan, colSpan]) =>
        `${columnName(col)}${row + 1}:${columnName(col + colSpan - 1)}${row + rowSpan}`,
    )
    .sort();
}

const tablesFiles = bornDigitalCorpus().files.filter((input) => input.file.startsWith("tables/"));

describe("pdfToExcel (tables mode) on every born-digital PDF of corpus/tables", () => {
  const outcomes: FileOutcome[] = [];

  beforeAll(async () => {
    outcomes.push(...(await Promise.all(tablesFiles.map((input) => convertTables(input.file)))));
    outcomes.sort((a, b) => a.file.localeCompare(b.file));
    const lines = outcomes.map(({ file, tables, workbook }) => {
      const sheets = typeof workbook === "string" ? workbook : `${workbook.worksheets.length} sheets`;
      return `${file.padEnd(80)} ${String(tables.length).padStart(3)} tables  ${sheets}`;
    });
    console.log(lines.join("\n"));
  }, 15 * 60_000);
  afterAll(async () => {
    await engines.close();
  });

  it("finds tables in (nearly) every file and writes one sheet per table, or fails with no_tables", () => {
    expect(outcomes).toHaveLength(tablesFiles.length);
    for (const { file, tables, workbook } of outcomes) {
      if (tables.length === 0) expect(workbook, file).toBe("no_tables");
      else
        expect(typeof workbook === "string" ? workbook : workbook.worksheets.length, file).toBe(
          tables.length,
        );
    }
    const withTables = outcomes.filter((outcome) => outcome.tables.length > 0).length;
    expect(withTables / outcomes.length).toBeGreaterThanOrEqual(0.9);
  });

  it("puts every cell of every table at its row and column, numbers as numbers", () => {
    for (const { file, tables, workbook } of outcomes) {
      if (typeof workbook === "string") continue;
      tables.forEach((table, index) => {
        const sheet = workbook.worksheets[index] as ExcelJS.Worksheet;
        expect(Object.fromEntries(sheetCells(sheet)), `${file}, ${sheet.name}`).toEqual(
          Object.fromEntries(gridCells(table.grid)),
        );
      });
    }
  });

  it("merges exactly the table's merged cells", () => {
    for (const { file, tables, workbook } of outcomes) {
      if (typeof workbook === "string") continue;
      tables.forEach((table, index) => {
        const sheet = workbook.worksheets[index] as ExcelJS.Worksheet;
        expect(mergeRanges(sheet), `${file}, ${sheet.name}`).toEqual(tableMerges(table.merges));
      });
    }
  });
});
