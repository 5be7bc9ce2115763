import { readFile } from "node:fs/promises";
import { JobFailure } from "@octavo/engines";
import { readManifest } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfToExcel, pdfToPowerPoint, pdfToWord } from "../src/index.js";
import { cleanup, corpusPath, count, elementTexts, part, readZip, wordRecall, workDir } from "./helpers.js";

let dir: string;
beforeAll(async () => {
  dir = await workDir();
});
afterAll(() => cleanup(dir));

async function failureOf(run: Promise<unknown>): Promise<JobFailure> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JobFailure);
  return error as JobFailure;
}

describe("inputs the conversions refuse", () => {
  const encrypted = readManifest().find(
    (entry) =>
      entry.path.startsWith("encrypted/") && entry.userPassword !== undefined && entry.userPassword !== "",
  );

  it("asks for the password of an encrypted PDF", async () => {
    expect(encrypted).toBeDefined();
    const input = { path: corpusPath(encrypted?.path ?? ""), name: "locked.pdf" };
    expect((await failureOf(pdfToWord(input, {}, { workDir: dir }))).code).toBe("password_required");
    expect((await failureOf(pdfToPowerPoint(input, {}, { workDir: dir }))).code).toBe("password_required");
    const excel = pdfToExcel(input, { mode: "tables" }, { workDir: dir });
    expect((await failureOf(excel)).code).toBe("password_required");
  });

  it("refuses a file that is not a PDF", async () => {
    const input = { path: corpusPath("mislabeled/pydocx_test_docx_renamed.pdf"), name: "report.pdf" };
    const failure = await failureOf(pdfToWord(input, {}, { workDir: dir }));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain("not a PDF");
  });

  it("stops with timeout when aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("deadline"));
    const input = { path: corpusPath("tables/tabula_schools.pdf"), name: "schools.pdf" };
    const failure = await failureOf(pdfToWord(input, {}, { workDir: dir, signal: controller.signal }));
    expect(failure.code).toBe("timeout");
  });
});

describe("a scanned PDF", () => {
  it("is OCRed first, so the Word document has its text, with a warning", async () => {
    const file = "scanned/tesseract_phototest.pdf";
    const result = await pdfToWord({ path: corpusPath(file), name: "phototest.pdf" }, {}, { workDir: dir });
    expect(result.engine).toContain("ocrmypdf");
    expect(result.warnings.join(" ")).toMatch(/OCR/);
    const document = part(await readZip(result.outputs[0]?.path ?? ""), "word/document.xml");
    const gold = await readFile(corpusPath("scanned/tesseract_phototest.gold.txt"), "utf8");
    const { recall } = wordRecall(gold, elementTexts(document, "w:t").join(" "));
    console.log(`${file}: word recall against the gold text ${(recall * 100).toFixed(1)} %`);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    // A recognised paragraph is one run in an ordinary font, not a run per word in OCR's placeholder font.
    expect(count(document, /<w:p>|<w:p /)).toBe(count(document, /<w:r>/));
    expect(document).toContain('w:ascii="Arial"');
    // The scan is not repeated as a picture under the recognised text.
    expect(document).not.toContain("<w:drawing>");
  }, 180_000);
});
