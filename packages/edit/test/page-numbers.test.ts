import { describe, expect, it } from "vitest";
import { numberText, type PageNumbersOptions, pageNumbers } from "../src/page-numbers.js";
import {
  context,
  corpus,
  failureOf,
  pageChange,
  pageTexts,
  qpdfCheck,
  qpdfPages,
  textLines,
} from "./helpers.js";

const latex = "general/samplefiles_pdflatex-outline.pdf";
const schools = "tables/tabula_schools.pdf";
const slides = "office/docling_odf_presentation_01.odp.reference.pdf";

function options(extra: Partial<PageNumbersOptions> = {}): PageNumbersOptions {
  return {
    format: "{n} / {total}",
    position: "bottom-center",
    start: 1,
    fontSize: 10,
    margin: "normal",
    ...extra,
  };
}

async function numbered(file: string, extra: Partial<PageNumbersOptions> = {}): Promise<string> {
  const result = await pageNumbers(corpus(file), options(extra), await context());
  const output = result.outputs[0]?.path ?? "";
  expect(result.outputs[0]?.name).toBe(file.split("/").pop());
  expect((await qpdfCheck(output)).code).toBe(0);
  expect(await qpdfPages(output)).toBe(await qpdfPages(corpus(file).path));
  return output;
}

/** Where the number changed page `page` (1-based) as poppler draws it, and the page's displayed size. */
async function numberArea(file: string, output: string, page: number) {
  const { area, width, height } = await pageChange(corpus(file).path, output, page);
  if (area === undefined) throw new Error(`page ${page} did not change`);
  return { area, width, height };
}

/** The direction MuPDF reads the line holding `text` on page `index`, rounded: [1, 0] is upright. */
async function direction(path: string, index: number, text: string): Promise<number[]> {
  const line = (await textLines(path, index)).find((candidate) => candidate.text.includes(text));
  return (line?.dir ?? [Number.NaN, Number.NaN]).map((value) => Math.round(value * 1000) / 1000);
}

describe("page numbers", () => {
  it("numbers every page as text, centred at the bottom, {total} being the page count", async () => {
    const output = await numbered(latex);
    const texts = await pageTexts(output);
    // poppler joins "1 / 4" to "1/4" (it judges spaces by distance); MuPDF keeps the space characters.
    expect(texts.map((text) => /\b(\d) ?\/ ?4\b/.exec(text)?.[1])).toEqual(["1", "2", "3", "4"]);
    expect((await textLines(output, 1)).some((line) => line.text === "2 / 4")).toBe(true);

    const { area, width, height } = await numberArea(latex, output, 3);
    expect(Math.abs((area[0] + area[2]) / 2 - width / 2)).toBeLessThan(1.5);
    // Normal margin: half an inch from the bottom edge to the lowest ink of any number.
    expect(area[3]).toBeLessThanOrEqual(height - 36 + 1);
    expect(area[3]).toBeGreaterThanOrEqual(height - 36 - 1);
  });

  it("counts only the chosen pages from start, at the top right with a small margin", async () => {
    const output = await numbered(latex, {
      format: "Page {n} of {total}",
      pages: "2-4",
      start: 10,
      position: "top-right",
      margin: "small",
    });
    const texts = await pageTexts(output);
    expect(texts.map((text) => /Page (\d+) of (\d+)/.exec(text)?.slice(1).join(" of "))).toEqual([
      undefined,
      "10 of 3",
      "11 of 3",
      "12 of 3",
    ]);
    const { area, width } = await numberArea(latex, output, 4);
    expect(area[2]).toBeLessThanOrEqual(width - 18 + 1);
    expect(area[2]).toBeGreaterThanOrEqual(width - 18 - 0.12 * 10);
    expect(area[1]).toBeGreaterThanOrEqual(18 - 1);
    expect(area[1]).toBeLessThanOrEqual(18 + 1);
  });

  it("stays upright and in the reader's corner on pages turned by /Rotate", async () => {
    // Every page has /Rotate 90 on a portrait MediaBox: the reader sees them landscape.
    const turned = await numbered(schools, { format: "{n}", position: "bottom-right", fontSize: 12 });
    const { area: corner, width: wide, height: high } = await numberArea(schools, turned, 1);
    expect([wide, high]).toEqual([792, 612]);
    expect(corner[2]).toBeLessThanOrEqual(792 - 36 + 1);
    // Placed by advance widths: a "1" has a wide right side bearing.
    expect(corner[2]).toBeGreaterThanOrEqual(792 - 36 - 0.25 * 12);
    expect(corner[3]).toBeLessThanOrEqual(612 - 36 + 1);
    expect(corner[3]).toBeGreaterThanOrEqual(612 - 36 - 1);
    expect(await direction(turned, 0, "1")).toEqual([1, 0]);

    // Every slide has /Rotate 270.
    const slid = await numbered(slides, { format: "Slide {n}", position: "bottom-left", margin: "small" });
    const { area, width, height } = await numberArea(slides, slid, 3);
    expect([width, height]).toEqual([842, 595]);
    expect(area[0]).toBeGreaterThanOrEqual(18);
    expect(area[0]).toBeLessThanOrEqual(18 + 0.12 * 10);
    expect(area[3]).toBeGreaterThanOrEqual(595 - 18 - 1);
    expect(area[3]).toBeLessThanOrEqual(595 - 18 + 1);
    expect(await direction(slid, 2, "Slide 3")).toEqual([1, 0]);
  });

  it("writes formats beyond Latin, and fills in every placeholder once", async () => {
    const output = await numbered(schools, { format: "第{n}页，共{total}页", pages: "4-5" });
    const texts = await pageTexts(output);
    expect(texts[3]).toContain("第1页，共2页");
    expect(texts[4]).toContain("第2页，共2页");
    expect(numberText("{n}/{total} ({n}) {x}", 7, 9)).toBe("7/9 (7) {x}");
  });

  it("refuses pages beyond the document, encrypted and mislabeled files; rebuilds a damaged one", async () => {
    const outside = await failureOf(pageNumbers(corpus(schools), options({ pages: "2,6" }), await context()));
    expect(outside.code).toBe("invalid_input");
    expect(outside.message).toContain("page 6");
    expect(outside.message).toContain("5 pages");
    const encrypted = await failureOf(
      pageNumbers(corpus("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf"), options(), await context()),
    );
    expect(encrypted.code).toBe("password_required");
    const mislabeled = await failureOf(
      pageNumbers(corpus("mislabeled/ocrmypdf_typewriter_png_renamed.pdf"), options(), await context()),
    );
    expect(mislabeled.code).toBe("invalid_input");

    const damaged = await pageNumbers(
      corpus("broken/cabinet_corruptionOneByteMissing.pdf", "report.pdf"),
      options({ format: "Seite {n}" }),
      await context(),
    );
    expect(damaged.warnings).toEqual([
      expect.stringMatching(/^report\.pdf is damaged; qpdf reconstructed it/),
    ]);
    expect((await qpdfCheck(damaged.outputs[0]?.path ?? "")).code).toBe(0);
    expect((await pageTexts(damaged.outputs[0]?.path ?? ""))[0]).toContain("Seite 1");
  });
});
