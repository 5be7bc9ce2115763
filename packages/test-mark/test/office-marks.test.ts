import { execFile } from "node:child_process";
import { copyFile, mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { corpusPath, createTempDir, runTool, wordRecall } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markTestOutputs, testModeStamp } from "../src/index.js";

const exec = promisify(execFile);

const contentTypes = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
} as const;

/**
 * Real Office files written by others (the corpus): sections with their own headers and without, first-page
 * headers, Strict OOXML, many sheets printed over many pages, slides in 4:3 and 16:9, Japanese text.
 */
const files = [
  "office/tika_testWORD_various.docx",
  "office/docling_docx_rich_tables_01.docx",
  "office/pydocx_having-images.docx",
  "office/docling_Strict.docx",
  "office/docling_text_document_01.odt",
  "office/docling_xlsx_01.xlsx",
  "office/gotenberg_singlepagesheets-scrolled.xlsx",
  "office/poi_SampleSS.strict.xlsx",
  "office/pypptx_cht-chart-type.pptx",
  "office/poi_with_japanese.pptx",
];

const oneLine = (text: string) => text.replace(/\s+/g, " ");

/** Each page's text, as poppler reads the PDF. */
async function pageTexts(pdf: string): Promise<string[]> {
  const { stdout } = await runTool("pdftotext", [pdf, "-"]);
  return stdout.split("\f").slice(0, -1);
}

describe("the test-mode stamp on Office outputs, as LibreOffice renders them", () => {
  let scratch: { path: string; dispose(): Promise<void> };
  /** Each corpus file's PDF, unmarked and marked: LibreOffice is the reader here. */
  const rendered = new Map<string, { original: string; marked: string }>();

  beforeAll(async () => {
    scratch = await createTempDir("octavo-test-mark-");
    const originals = join(scratch.path, "originals");
    const marked = join(scratch.path, "marked");
    await mkdir(originals);
    await mkdir(marked);
    for (const [index, file] of files.entries()) {
      const name = basename(file);
      const extension = name.split(".").pop() as keyof typeof contentTypes;
      const workDir = join(scratch.path, `work-${index}`);
      await mkdir(workDir);
      const result = await markTestOutputs(
        [{ path: corpusPath(file), name }],
        { contentTypes: [contentTypes[extension]], pagesPerInput: 10, maxPages: 10 },
        { workDir },
      );
      expect(result.outputs[0]).toMatchObject({ name, contentType: contentTypes[extension] });
      await copyFile(result.outputs[0]?.path ?? "", join(marked, name));
      await copyFile(corpusPath(file), join(originals, name));
    }
    const profile = `file://${join(scratch.path, "profile")}`;
    for (const dir of [originals, marked]) {
      const inputs = files.map((file) => join(dir, basename(file)));
      await exec(
        "soffice",
        [
          "--headless",
          `-env:UserInstallation=${profile}`,
          "--convert-to",
          "pdf",
          "--outdir",
          `${dir}/pdf`,
          ...inputs,
        ],
        { timeout: 300_000 },
      );
    }
    for (const file of files) {
      const pdf = `${basename(file).replace(/\.[a-z]+$/, "")}.pdf`;
      rendered.set(file, { original: join(originals, "pdf", pdf), marked: join(marked, "pdf", pdf) });
    }
  }, 400_000);
  afterAll(async () => {
    await scratch?.dispose();
  });

  it.each(files)("shows the stamp once on every page of %s, and keeps all its text", async (file) => {
    const { original, marked } = rendered.get(file) ?? { original: "", marked: "" };
    const before = await pageTexts(original);
    const after = await pageTexts(marked);
    expect(after.length).toBe(before.length);
    const stamps = after.map((text) => oneLine(text).split(testModeStamp).length - 1);
    expect(stamps).toEqual(after.map(() => 1));
    expect(wordRecall(before.join("\n"), after.join("\n")).recall).toBe(1);
  });
});
