import { spawnSync } from "node:child_process";
import type { EngineResult } from "@octavo/engines";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfToWord } from "../src/index.js";
import {
  cleanup,
  corpusPath,
  count,
  elementTexts,
  part,
  pdfPageSizes,
  pdfTextLines,
  pdftotext,
  readZip,
  wordRecall,
  workDir,
} from "./helpers.js";

interface Case {
  file: string;
  what: string;
  /** Pictures the PDF has (poppler's pdfimages -list). */
  images: number;
  tables: boolean;
}

const cases: Case[] = [
  { file: "general/samplefiles_crazyones-pdfa.pdf", what: "prose", images: 0, tables: false },
  { file: "general/pdfjs_tracemonkey_with_annotations.pdf", what: "two columns", images: 180, tables: false },
  {
    file: "general/pdfplumber_federal-register-2020-17221.pdf",
    what: "columns and images",
    images: 11,
    tables: false,
  },
  { file: "tables/tabula_schools.pdf", what: "a ruled table", images: 0, tables: true },
];

describe.each(cases)("pdfToWord on $file ($what)", ({ file, images, tables }) => {
  let dir: string;
  let result: EngineResult;
  let document: string;
  let media: string[];
  const progress: number[] = [];

  beforeAll(async () => {
    dir = await workDir();
    const started = Date.now();
    result = await pdfToWord(
      { path: corpusPath(file), name: file.split("/").pop() ?? "" },
      {},
      { workDir: dir, onProgress: (fraction) => progress.push(fraction) },
    );
    const pages = pdfPageSizes(corpusPath(file)).length;
    console.log(`${file}: ${((Date.now() - started) / 1000 / pages).toFixed(2)} s per page`);
    const zip = await readZip(result.outputs[0]?.path ?? "");
    document = part(zip, "word/document.xml");
    media = Object.keys(zip).filter((name) => name.startsWith("word/media/") && !name.endsWith("/"));
  });
  afterAll(() => cleanup(dir));

  it("delivers one .docx named like the input, with progress up to 1", () => {
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]?.name).toBe(
      file
        .split("/")
        .pop()
        ?.replace(/\.pdf$/, ".docx"),
    );
    expect(result.outputs[0]?.contentType).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("keeps at least 98 % of the PDF's words", () => {
    const { recall, missing } = wordRecall(
      pdftotext(corpusPath(file)),
      elementTexts(document, "w:t").join(" "),
    );
    console.log(`${file}: word recall ${(recall * 100).toFixed(2)} %`);
    expect(recall, `missing: ${missing.slice(0, 40).join(" ")}`).toBeGreaterThanOrEqual(0.98);
  });

  it("writes flowing paragraphs with styled runs, not frames or text boxes", () => {
    expect(count(document, /<w:framePr/)).toBe(0);
    expect(count(document, /<w:txbxContent|<wps:txbx|<v:textbox/)).toBe(0);
    const paragraphs = count(document, /<w:p>|<w:p /);
    const lines = pdfTextLines(corpusPath(file));
    expect(paragraphs).toBeGreaterThan(0);
    // Lines are joined into paragraphs (table cells hold a paragraph each, so tables are left out).
    if (!tables) expect(paragraphs).toBeLessThan(lines);
    expect(count(document, /<w:rFonts /)).toBeGreaterThan(0);
    expect(count(document, /<w:sz w:val="\d+"\/>/)).toBeGreaterThan(0);
  });

  it("gives the first section the size of the PDF's first page", () => {
    const first = pdfPageSizes(corpusPath(file))[0];
    const size = /<w:pgSz w:w="(\d+)" w:h="(\d+)"/.exec(document);
    expect(first).toBeDefined();
    expect(Number(size?.[1]) / 20).toBeCloseTo(first?.width ?? 0, 0);
    expect(Number(size?.[2]) / 20).toBeCloseTo(first?.height ?? 0, 0);
  });

  it(images > 0 ? "places the PDF's pictures inline" : "adds no pictures the PDF does not have", () => {
    const drawings = count(document, /<w:drawing>/);
    if (images === 0) {
      expect(drawings).toBe(0);
      expect(media).toHaveLength(0);
    } else {
      expect(drawings).toBeGreaterThanOrEqual(Math.min(images, 11));
      expect(media.length).toBeGreaterThan(0);
      expect(count(document, /<wp:inline/)).toBe(drawings);
    }
  });

  it(tables ? "writes the table as a Word table with its column grid" : "writes no table", () => {
    const tablesFound = count(document, /<w:tbl>/);
    if (!tables) return;
    expect(tablesFound).toBeGreaterThanOrEqual(1);
    expect(count(document, /<w:gridCol /)).toBeGreaterThanOrEqual(8);
    const cells = elementTexts(document, "w:t");
    for (const header of ["Last Name", "First Name", "Address", "City", "Occupation", "Employer"]) {
      expect(cells).toContain(header);
    }
  });
});

describe("pdfToWord: pages and merged cells", () => {
  it("merges the cells a table spans", async () => {
    const dir = await workDir();
    try {
      const file = corpusPath("tables/tabula_spanning_cells.pdf");
      const result = await pdfToWord({ path: file, name: "spanning.pdf" }, {}, { workDir: dir });
      const document = part(await readZip(result.outputs[0]?.path ?? ""), "word/document.xml");
      expect(count(document, /<w:tbl>/)).toBeGreaterThanOrEqual(2);
      // "Improved operation scenario" spans the table's 6 columns.
      expect(document).toContain('<w:gridSpan w:val="6"/>');
      expect(elementTexts(document, "w:t")).toContain("Improved operation scenario");
    } finally {
      await cleanup(dir);
    }
  });

  it("breaks pages between pages and keeps landscape pages landscape", async () => {
    const dir = await workDir();
    try {
      const file = corpusPath("tables/tabula_schools.pdf");
      const result = await pdfToWord({ path: file, name: "schools.pdf" }, {}, { workDir: dir });
      const document = part(await readZip(result.outputs[0]?.path ?? ""), "word/document.xml");
      const pages = Number(
        /Pages:\s+(\d+)/.exec(spawnSync("pdfinfo", [file], { encoding: "utf8" }).stdout)?.[1],
      );
      // Each page after the first starts on a new page: a break on its first paragraph, or before its table.
      expect(count(document, /<w:pageBreakBefore\/>/)).toBe(pages - 1);
      // A landscape page is written as landscape.
      expect(document).toContain('w:orient="landscape"');
    } finally {
      await cleanup(dir);
    }
  });
});
