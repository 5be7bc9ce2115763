import { JobFailure } from "@octavo/engines";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfToExcel } from "../src/index.js";
import { cleanup, corpusPath, workDir } from "./helpers.js";

let dir: string;
beforeAll(async () => {
  dir = await workDir();
});
afterAll(() => cleanup(dir));

async function convert(file: string, mode: "tables" | "pages"): Promise<ExcelJS.Workbook> {
  const result = await pdfToExcel(
    { path: corpusPath(file), name: file.split("/").pop() ?? "" },
    { mode },
    { workDir: dir },
  );
  expect(result.outputs[0]?.name).toBe(
    file
      .split("/")
      .pop()
      ?.replace(/\.pdf$/, ".xlsx"),
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(result.outputs[0]?.path ?? "");
  return workbook;
}

function rowTexts(sheet: ExcelJS.Worksheet, row: number): string[] {
  const texts: string[] = [];
  sheet.getRow(row).eachCell((cell) => {
    texts.push(String(cell.value));
  });
  return texts;
}

describe("pdfToExcel, tables mode", () => {
  it("writes a ruled table per page, with its header cells and numbers as numbers", async () => {
    const workbook = await convert("tables/tabula_schools.pdf", "tables");
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      "Page 1 Table 1",
      "Page 2 Table 1",
      "Page 3 Table 1",
      "Page 4 Table 1",
      "Page 5 Table 1",
    ]);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(rowTexts(sheet, 1)).toEqual([
      "Last Name",
      "First Name",
      "Address",
      "City",
      "State",
      "Zip",
      "Occupation",
      "Employer",
      "Date",
      "Amount",
    ]);
    // Row 2 of the PDF: Lidstad, Dick & Peg, 62 Mississippi River Blvd N, Saint Paul, MN, 55104, retired, , 10/12/2012, 60.00
    expect(sheet.getCell("A2").value).toBe("Lidstad");
    expect(sheet.getCell("F2").value).toBe(55104);
    expect(sheet.getCell("J2").value).toBe(60);
    expect(sheet.getCell("J2").numFmt).toBe("0.00");
    // "10/12/2012" could be October or December: it stays text.
    expect(sheet.getCell("I2").value).toBe("10/12/2012");
    let amounts = 0;
    sheet.eachRow((row, index) => {
      if (index > 1 && typeof row.getCell(10).value === "number") amounts += 1;
    });
    expect(amounts).toBeGreaterThanOrEqual(40);
  });

  it("merges the cells a table spans", async () => {
    const workbook = await convert("tables/tabula_spanning_cells.pdf", "tables");
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(["Table 1", "Table 2"]);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    const merges = (sheet.model as { merges: string[] }).merges;
    expect(merges).toContain("A1:F1");
    expect(sheet.getCell("A1").value).toBe("Improved operation scenario");
    expect(sheet.getCell("B2").value).toBe(2007);
    expect(sheet.getCell("B3").value).toBe(1505);
  });

  it("fails with no_tables on a PDF without a table", async () => {
    const failure = await convert("general/samplefiles_crazyones-pdfa.pdf", "tables").catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as JobFailure).code).toBe("no_tables");
    expect((failure as JobFailure).message).toContain("pages");
  });
});

describe("pdfToExcel, pages mode", () => {
  it("writes one sheet per page, words in rows and position columns", async () => {
    const workbook = await convert("tables/tabula_schools.pdf", "pages");
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      "Page 1",
      "Page 2",
      "Page 3",
      "Page 4",
      "Page 5",
    ]);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    let header: ExcelJS.Row | undefined;
    sheet.eachRow((row) => {
      if (header === undefined && row.values.toString().includes("Last Name")) header = row;
    });
    expect(header).toBeDefined();
    const headerCells = ((header?.values ?? []) as unknown[]).filter(
      (value) => value !== undefined && value !== null,
    );
    expect(headerCells).toEqual(
      expect.arrayContaining(["Last Name", "First Name", "Address", "Zip", "Amount"]),
    );
    const numbers = sheet.getColumn(sheet.columnCount).values.filter((value) => typeof value === "number");
    expect(numbers.length).toBeGreaterThanOrEqual(40);
  });

  it("writes the text of a page without tables too", async () => {
    const workbook = await convert("general/samplefiles_crazyones-pdfa.pdf", "pages");
    expect(workbook.worksheets).toHaveLength(1);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.getCell("A1").value).toBe("The Crazy Ones");
    // "October 14, 1998" names its month: a real date.
    expect(sheet.getCell("A2").value).toEqual(new Date(Date.UTC(1998, 9, 14)));
    const texts = [3, 4, 5].map((row) => rowTexts(sheet, row).join(" "));
    expect(texts.join(" ")).toContain("Heres to the crazy ones.");
  });
});
