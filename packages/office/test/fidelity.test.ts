import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { OfficeConverter } from "../src/index.js";
import { corpus, pdfPages, pdfText, tempDir, words } from "./helpers.js";

const execFileAsync = promisify(execFile);

let root: string;
let converter: OfficeConverter;
let outputs = 0;

beforeAll(async () => {
  root = await tempDir();
  converter = new OfficeConverter({
    instances: 1,
    maxConversionsPerInstance: 100,
    conversionTimeoutMs: 60_000,
    workDir: join(root, "work"),
  });
});

afterAll(async () => {
  await converter.close();
});

async function convertBytes(name: string, bytes: Buffer | string): Promise<string> {
  outputs += 1;
  const dir = join(root, `case-${outputs}`);
  await mkdir(dir);
  // Stored like an upload: no extension on disk, the client's name beside it.
  const path = join(dir, "upload");
  await writeFile(path, bytes);
  const output = await converter.convert({ path, name }, dir);
  expect(output.name).toBe(name.replace(/\.[^.]+$/, ".pdf"));
  return output.path;
}

/** Width and height in points of each page. */
async function pageSizes(path: string): Promise<{ width: number; height: number }[]> {
  const { stdout } = await execFileAsync("pdfinfo", ["-f", "1", "-l", "999", path]);
  return [...stdout.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/g)].map((match) => ({
    width: Number(match[1]),
    height: Number(match[2]),
  }));
}

describe("text inputs keep their characters", () => {
  it("reads a UTF-16 tab-separated CSV, and keeps IDs and leading zeros as written", async () => {
    const csv =
      "Name\tStreet\tCustomer ID\nJürgen Groß\tStraße 5\t00012345678901234567890\nZoë\tRue de l’Église\t007\n";
    const pdf = await pdfText(
      await convertBytes(
        "kunden.csv",
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, "utf16le")]),
      ),
    );
    for (const text of ["Jürgen Groß", "Straße 5", "00012345678901234567890", "Rue de l’Église", "007"]) {
      expect(pdf).toContain(text);
    }
  });

  it("reads a Windows-1251 TXT", async () => {
    const text = "Привет, мир! Это текст в кодировке Windows-1251 для проверки определения кодировки.";
    // The same sentence in Windows-1251 (Node's TextEncoder writes UTF-8 only).
    const bytes = Buffer.from(
      "cff0e8e2e5f22c20ece8f02120ddf2ee20f2e5eaf1f220e220eaeee4e8f0eee2eae52057696e646f77732d3132353120e4ebff20eff0eee2e5f0eae820eeeff0e5e4e5ebe5ede8ff20eaeee4e8f0eee2eae82e",
      "hex",
    );
    const pdf = await pdfText(await convertBytes("privet.txt", bytes));
    expect(pdf.replace(/\s+/g, " ")).toContain(text);
  });

  it("reads a UTF-16BE TXT without a byte-order mark", async () => {
    const text = "Ünïcödé without a byte-order mark, in big-endian UTF-16.\n";
    const le = Buffer.from(text.repeat(2), "utf16le");
    const be = Buffer.from(le.map((_, index) => le[index ^ 1] ?? 0));
    expect(await pdfText(await convertBytes("big-endian.txt", be))).toContain(text.trim());
  });
});

describe("spreadsheets", () => {
  it("fits a sheet wider than the page to the page width, in landscape", async () => {
    const columns = Array.from({ length: 40 }, (_, index) => `heading${String(index + 1).padStart(2, "0")}`);
    const rows = [
      columns.join(","),
      ...Array.from({ length: 60 }, (_, row) => columns.map((_, column) => `r${row}c${column}`).join(",")),
    ];
    const path = await convertBytes("wide.csv", `${rows.join("\n")}\n`);
    const sizes = await pageSizes(path);
    expect(sizes[0]?.width).toBeGreaterThan(sizes[0]?.height ?? 0);
    // All 40 columns on the first page, instead of spilling across pages to the right.
    const firstPage = (await execFileAsync("pdftotext", ["-f", "1", "-l", "1", path, "-"])).stdout;
    for (const heading of columns) expect(firstPage).toContain(heading);
    expect(await pdfPages(path)).toBeLessThanOrEqual(2);
  });

  it("prints every sheet that has content", async () => {
    const file = corpus("office/docling_xlsx_01.xlsx");
    const book = XLSX.read(await readFile(file.path));
    const sheets = book.SheetNames.map((name) => ({
      name,
      words: words(XLSX.utils.sheet_to_csv(book.Sheets[name] ?? {}, { FS: " " })),
    })).filter((sheet) => sheet.words.size > 0);
    expect(sheets.length).toBeGreaterThan(1);
    const out = join(root, "sheets");
    await mkdir(out);
    const pdf = words(await pdfText((await converter.convert(file, out)).path));
    for (const sheet of sheets) {
      const found = [...sheet.words].filter((word) => pdf.has(word)).length;
      expect(found / sheet.words.size, `sheet ${sheet.name}`).toBeGreaterThan(0.9);
    }
  });
});
