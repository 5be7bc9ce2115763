import type { EngineResult } from "@octavo/engines";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfToPowerPoint } from "../src/index.js";
import {
  cleanup,
  corpusPath,
  count,
  elementTexts,
  part,
  pdfPageSizes,
  pdftotext,
  readZip,
  wordRecall,
  workDir,
} from "./helpers.js";

/** DrawingML measures in EMU: 914400 per inch, 12700 per point. */
const emuPerPoint = 12_700;

interface Case {
  file: string;
  /** Whether the pages have graphics besides their text (so each slide needs a background picture). */
  graphics: boolean;
}

const cases: Case[] = [
  { file: "general/samplefiles_crazyones-pdfa.pdf", graphics: false },
  { file: "tables/tabula_schools.pdf", graphics: true },
  { file: "general/pdfplumber_federal-register-2020-17221.pdf", graphics: true },
];

describe.each(cases)("pdfToPowerPoint on $file", ({ file, graphics }) => {
  let dir: string;
  let result: EngineResult;
  let zip: Record<string, Uint8Array>;
  let slides: string[];
  const sizes = pdfPageSizes(corpusPath(file));

  beforeAll(async () => {
    dir = await workDir();
    const started = Date.now();
    result = await pdfToPowerPoint(
      { path: corpusPath(file), name: file.split("/").pop() ?? "" },
      {},
      { workDir: dir },
    );
    console.log(`${file}: ${((Date.now() - started) / 1000 / sizes.length).toFixed(2)} s per page`);
    zip = await readZip(result.outputs[0]?.path ?? "");
    const names = Object.keys(zip).filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name));
    names.sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1]) - Number(/(\d+)\.xml$/.exec(b)?.[1]));
    slides = names.map((name) => part(zip, name));
  });
  afterAll(() => cleanup(dir));

  it("delivers one .pptx with one slide per page", () => {
    expect(result.outputs[0]?.name).toBe(
      file
        .split("/")
        .pop()
        ?.replace(/\.pdf$/, ".pptx"),
    );
    expect(slides).toHaveLength(sizes.length);
  });

  it("makes the slides the size of the first page", () => {
    const size = /<p:sldSz cx="(\d+)" cy="(\d+)"/.exec(part(zip, "ppt/presentation.xml"));
    expect(Number(size?.[1]) / emuPerPoint).toBeCloseTo(sizes[0]?.width ?? 0, 0);
    expect(Number(size?.[2]) / emuPerPoint).toBeCloseTo(sizes[0]?.height ?? 0, 0);
  });

  it("keeps at least 98 % of the words, in editable text boxes", () => {
    const texts = slides.flatMap((slide) => elementTexts(slide, "a:t"));
    const { recall, missing } = wordRecall(pdftotext(corpusPath(file)), texts.join(" "));
    console.log(`${file}: word recall ${(recall * 100).toFixed(2)} %`);
    expect(recall, `missing: ${missing.slice(0, 40).join(" ")}`).toBeGreaterThanOrEqual(0.98);
    for (const slide of slides) {
      const boxes = count(slide, /<p:sp>/);
      expect(count(slide, /<p:cNvSpPr txBox="1"\/>/)).toBe(boxes);
      // Text is never only in a picture: each slide with text on its page has text boxes.
      expect(boxes).toBeGreaterThan(0);
    }
  });

  it(
    graphics
      ? "puts each page's graphics, without the text, in a background picture"
      : "adds no background picture to a page with nothing but text (the text is not painted twice)",
    () => {
      const backgrounds = slides.filter((slide) => /<p:bg>[\s\S]*<a:blip r:embed=/.test(slide)).length;
      expect(backgrounds).toBe(graphics ? slides.length : 0);
      const media = Object.keys(zip).filter((name) => name.startsWith("ppt/media/") && !name.endsWith("/"));
      expect(media.length).toBe(graphics ? slides.length : 0);
      for (const slide of slides) expect(count(slide, /<p:pic>/)).toBe(0);
    },
  );
});
