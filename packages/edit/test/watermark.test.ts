import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, withPdf } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { childrenMatching, contentBombPdf, waitFor } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { type WatermarkOptions, watermark } from "../src/watermark.js";
import {
  context,
  corpus,
  failureOf,
  pageChange,
  pageTexts,
  pdftotext,
  qpdfCheck,
  qpdfPages,
  type Rendering,
  textLines,
  tool,
} from "./helpers.js";

const latex = "general/samplefiles_pdflatex-outline.pdf";
const margin = 36;

function options(extra: Partial<WatermarkOptions> = {}): WatermarkOptions {
  return {
    text: "CONFIDENTIAL",
    fontSize: 48,
    color: "#FF0000",
    opacity: 0.3,
    rotation: 0,
    position: "center",
    ...extra,
  };
}

async function marked(file: string, extra: Partial<WatermarkOptions> = {}): Promise<string> {
  const result = await watermark(corpus(file), options(extra), await context());
  const output = result.outputs[0]?.path ?? "";
  expect((await qpdfCheck(output)).code).toBe(0);
  return output;
}

/** The stamp's line in MuPDF's structured text of page `index`, in display space. */
async function stampLine(path: string, index: number, text: string) {
  const line = (await textLines(path, index)).find((candidate) => candidate.text.includes(text));
  if (line === undefined) throw new Error(`no line with "${text}" on page ${index + 1}`);
  return line;
}

/** Fully covered pixels of a translucent stamp over white: the darkest of them in each channel. */
function darkestOverWhite(before: Rendering, after: Rendering): number[] {
  const darkest = [255, 255, 255];
  for (let at = 0; at < after.pixels.length; at += 3) {
    const white = [0, 1, 2].every((channel) => (before.pixels[at + channel] ?? 0) >= 250);
    if (!white) continue;
    for (const channel of [0, 1, 2])
      darkest[channel] = Math.min(darkest[channel] ?? 255, after.pixels[at + channel] ?? 255);
  }
  return darkest;
}

function words(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.split(/\s+/).filter((item) => item !== ""))
    counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

describe("watermark", () => {
  it("draws real, translucent text over every page and leaves the page content as it was", async () => {
    const input = corpus(latex, "notes.pdf");
    const result = await watermark(input, options(), await context());
    const output = result.outputs[0]?.path ?? "";
    expect(result.outputs[0]?.name).toBe("notes.pdf");
    expect(result.warnings).toEqual([]);
    expect((await qpdfCheck(output)).code).toBe(0);
    expect(await qpdfPages(output)).toBe(4);

    // Selectable text on every page, and every word of the original still there.
    expect((await pageTexts(output)).map((text) => text.includes("CONFIDENTIAL"))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const kept = words(await pdftotext(output));
    for (const [word, count] of words(await pdftotext(input.path)))
      expect(kept.get(word) ?? 0).toBeGreaterThanOrEqual(count);
    const fonts = (await tool("pdffonts", [output])).stdout;
    expect(fonts).toMatch(/\+Helvetica\s+CID Type 0C\s+Identity-H\s+yes\s+yes\s+yes/);

    // The original streams come first, unchanged and wrapped in q … Q; the stamp is drawn after them.
    const original = await withPdf(input.path, (doc) => streamsOf(doc.findPage(0)));
    await withPdf(output, (doc) => {
      const page = doc.findPage(0);
      const streams = streamsOf(page);
      expect(streams[0]).toBe("q\n");
      expect(streams.slice(1, -1)).toEqual(original);
      const stamp = streams.at(-1) ?? "";
      expect(stamp.startsWith("\nQ\n")).toBe(true);
      const state = /\/(\S+) gs/.exec(stamp)?.[1] ?? "";
      const extGState = page.get("Resources", "ExtGState", state);
      expect(extGState.get("ca").asNumber()).toBeCloseTo(0.3, 5);
      expect(stamp).toContain("1 0 0 rg");
    });

    // Centred on the page, red at 30 % over white: 255 · 0.7 in green and blue.
    const { area, width, height, before, after } = await pageChange(input.path, output);
    if (area === undefined) throw new Error("the page did not change");
    // Centred by advance widths, so the ink's side bearings may shift it a little sideways.
    expect(Math.abs((area[0] + area[2]) / 2 - width / 2)).toBeLessThan(3);
    expect(Math.abs((area[1] + area[3]) / 2 - height / 2)).toBeLessThan(1.5);
    const [red, green, blue] = darkestOverWhite(before, after);
    expect(red).toBeGreaterThanOrEqual(250);
    expect(green).toBeGreaterThanOrEqual(174);
    expect(green).toBeLessThanOrEqual(183);
    expect(blue).toBe(green);
  });

  it("reads upright at the chosen corner on pages turned by /Rotate 90 and 270", async () => {
    // tabula_schools pages have /Rotate 90 on a portrait MediaBox: the reader sees them landscape.
    const schools = corpus("tables/tabula_schools.pdf").path;
    const turned90 = await marked("tables/tabula_schools.pdf", {
      text: "DRAFT",
      position: "top-left",
      pages: "1",
    });
    const top = await pageChange(schools, turned90);
    expect([top.width, top.height]).toEqual([792, 612]);
    const [left, upper] = top.area ?? [];
    expect(left).toBeGreaterThanOrEqual(margin);
    expect(left).toBeLessThanOrEqual(margin + 0.12 * 48);
    expect(upper).toBeGreaterThanOrEqual(margin - 1);
    expect(upper).toBeLessThanOrEqual(margin + 1);
    expect(
      (await stampLine(turned90, 0, "DRAFT")).dir.map((value) => Math.round(value * 1000) / 1000),
    ).toEqual([1, 0]);

    // Every page of the presentation has /Rotate 270.
    const slides = corpus("office/docling_odf_presentation_01.odp.reference.pdf").path;
    const turned270 = await marked("office/docling_odf_presentation_01.odp.reference.pdf", {
      text: "DRAFT",
      position: "bottom-right",
    });
    const bottom = await pageChange(slides, turned270, 2);
    expect([bottom.width, bottom.height]).toEqual([842, 595]);
    const [, , right, lower] = bottom.area ?? [];
    expect(right).toBeLessThanOrEqual(842 - margin);
    expect(right).toBeGreaterThanOrEqual(842 - margin - 0.12 * 48);
    expect(lower).toBeGreaterThanOrEqual(595 - margin - 1);
    expect(lower).toBeLessThanOrEqual(595 - margin + 1);
    expect(
      (await stampLine(turned270, 1, "DRAFT")).dir.map((value) => Math.round(value * 1000) / 1000),
    ).toEqual([1, 0]);
  });

  it("stays inside the visible box when the CropBox is smaller than the MediaBox", async () => {
    // CropBox [49.6 43.9 659.1 834.8] inside MediaBox [0 0 708.7 878.7].
    const file = "tables/camelot_population_growth.pdf";
    const output = await marked(file, { position: "bottom-right", text: "COPY" });
    const { area, width, height } = await pageChange(corpus(file).path, output);
    // Rendered as viewers show it: the CropBox, 609.4 × 790.9 pt.
    expect(Math.abs(width - 609.4)).toBeLessThan(1);
    expect(Math.abs(height - 790.9)).toBeLessThan(1);
    const [, , right, lower] = area ?? [];
    expect(right).toBeLessThanOrEqual(609.4 - margin + 1);
    expect(right).toBeGreaterThanOrEqual(609.4 - margin - 0.12 * 48);
    expect(lower).toBeGreaterThanOrEqual(790.9 - margin - 1);
    expect(lower).toBeLessThanOrEqual(790.9 - margin + 1);
  });

  it("turns the text counter-clockwise by the rotation, around the chosen position", async () => {
    const input = corpus(latex).path;
    const diagonal = await marked(latex, { rotation: 45, text: "Confidential Draft", fontSize: 60 });
    const line = await stampLine(diagonal, 0, "Confidential Draft");
    expect(line.dir[0]).toBeCloseTo(Math.SQRT1_2, 3);
    expect(line.dir[1]).toBeCloseTo(-Math.SQRT1_2, 3); // up and to the right: y grows downwards
    const centred = await pageChange(input, diagonal);
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = centred.area ?? [];
    expect(Math.abs((x0 + x1) / 2 - centred.width / 2)).toBeLessThan(5);
    expect(Math.abs((y0 + y1) / 2 - centred.height / 2)).toBeLessThan(5);

    const tilted = await marked(latex, { rotation: -30, text: "Confidential", position: "top-left" });
    expect((await stampLine(tilted, 0, "Confidential")).dir[1]).toBeCloseTo(0.5, 3);
    expect(await pdftotext(tilted, { first: 1, last: 1 }, ["-raw"])).toContain("Confidential");
    // The turned box of the line touches the margins; the ink of its corner letters lies a little inside.
    const [left = 0, top = 0] = (await pageChange(input, tilted)).area ?? [];
    for (const edge of [left, top]) {
      expect(edge).toBeGreaterThanOrEqual(margin - 1);
      expect(edge).toBeLessThanOrEqual(margin + 0.3 * 48);
    }
  });

  it("draws text too long for the page smaller, between the margins, and says so", async () => {
    const text = "FOR INTERNAL REVIEW ONLY - DO NOT DISTRIBUTE";
    const result = await watermark(
      corpus(latex),
      options({ text, fontSize: 120, pages: "1" }),
      await context(),
    );
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^The text did not fit at 120 pt on 1 page, so it was drawn smaller there \(down to [\d.]+ pt\)\.$/,
      ),
    ]);
    const output = result.outputs[0]?.path ?? "";
    expect(await pdftotext(output, { first: 1, last: 1 })).toContain(text);
    const { area, width } = await pageChange(corpus(latex).path, output);
    const [left = 0, , right = 0] = area ?? [];
    expect(left).toBeGreaterThanOrEqual(margin);
    expect(right).toBeLessThanOrEqual(width - margin + 1);
    expect(right - left).toBeGreaterThan(width - 2 * margin - 0.2 * 48);
  });

  it("marks only the listed pages, and refuses pages beyond the document", async () => {
    const output = await marked(latex, { pages: "2,4" });
    expect((await pageTexts(output)).map((text) => text.includes("CONFIDENTIAL"))).toEqual([
      false,
      true,
      false,
      true,
    ]);
    const failure = await failureOf(watermark(corpus(latex), options({ pages: "3-9" }), await context()));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain("3-9");
    expect(failure.message).toContain("4 pages");
  });

  it("stops the source's qpdf check when the job is refused, leaving no qpdf behind", async () => {
    // One page whose content inflates to 200 MB: the qpdf --check that starts beside the edit reads it for
    // seconds, and a page range past its end is refused at once.
    const path = join((await context()).workDir, "one-page.pdf");
    await writeFile(path, contentBombPdf(200 * 1024 ** 2));
    const failure = await failureOf(
      watermark({ path, name: "one-page.pdf" }, options({ pages: "2" }), await context()),
    );
    expect(failure.code).toBe("invalid_input");
    await waitFor(
      "the source's qpdf --check to be stopped",
      () => (childrenMatching(process.pid, `--check --show-npages ${path}`).length === 0 ? true : undefined),
      1000,
    );
  });

  it("draws Greek, Cyrillic and CJK text, and names the characters no font has", async () => {
    const output = await marked(latex, { text: "Προσχέδιο Черновик 草稿", pages: "1" });
    const text = await pdftotext(output, { first: 1, last: 1 });
    for (const word of ["Προσχέδιο", "Черновик", "草稿"]) expect(text).toContain(word);
    const fonts = (await tool("pdffonts", [output])).stdout;
    expect(fonts).toMatch(/\+Helvetica\s+CID Type 0C\s+Identity-H\s+yes\s+yes\s+yes/);
    expect(fonts).toMatch(/\+Droid Sans Fallback Regular\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);

    const arabic = await failureOf(
      watermark(corpus(latex), options({ text: "مسودة DRAFT" }), await context()),
    );
    expect(arabic.code).toBe("conversion_failed");
    expect(arabic.message).toContain("U+0645");
    const emoji = await failureOf(watermark(corpus(latex), options({ text: "DRAFT 🙂" }), await context()));
    expect(emoji.message).toContain('"🙂" (U+1F642)');
    expect(emoji.message).not.toContain("U+0044"); // D has a glyph
  });

  it("adds its font under a new name to a copy of inherited resources, unmoved by leftover state", async () => {
    const ctx = await context();
    const input = { path: join(ctx.workDir, "inherited.pdf"), name: "inherited.pdf" };
    // A page that inherits its resources from the page tree, whose font dictionary already has "OctavoF0",
    // and whose content ends by scaling, colouring and clipping without restoring the graphics state.
    const originalFonts = await withPdf(
      corpus("general/cabinet_text_only_fontsNotEmbedded.pdf").path,
      (doc) => {
        const page = doc.findPage(0);
        const resources = page.get("Resources");
        const fontDict = resources.get("Font");
        const fonts: string[] = [];
        fontDict.forEach((_, key) => {
          fonts.push(String(key));
        });
        fontDict.put("OctavoF0", fontDict.get(fonts[0] ?? ""));
        page.get("Parent").put("Resources", resources);
        page.delete("Resources");
        const contents = doc.newArray();
        contents.push(page.get("Contents"));
        contents.push(doc.addStream("0.2 0 0 0.2 0 0 cm 0 0 1 rg 7 Tr\n", doc.newDictionary()));
        page.put("Contents", contents);
        doc.save(input.path, "");
        return fonts;
      },
    );
    const result = await watermark(input, options(), ctx);
    const output = result.outputs[0]?.path ?? "";
    expect((await qpdfCheck(output)).code).toBe(0);
    const text = await pdftotext(output);
    expect(text).toContain("This is a test document.");
    expect(text).toContain("CONFIDENTIAL");
    // Still centred and red at 30 %: the leftover scale, colour and text clipping did not reach the stamp.
    const { area, width, height, before, after } = await pageChange(input.path, output);
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = area ?? [];
    expect(Math.abs((x0 + x1) / 2 - width / 2)).toBeLessThan(3);
    expect(Math.abs((y0 + y1) / 2 - height / 2)).toBeLessThan(1.5);
    const [red = 0, green = 0] = darkestOverWhite(before, after);
    expect(red).toBeGreaterThanOrEqual(250);
    expect(Math.abs(green - 255 * 0.7)).toBeLessThan(5);

    await withPdf(output, (doc) => {
      const page = doc.findPage(0);
      const fontDict = page.get("Resources", "Font");
      for (const name of originalFonts) expect(fontDict.get(name).isDictionary()).toBe(true);
      expect(fontDict.get("OctavoF0").get("Subtype").asName()).toBe("TrueType"); // still the page's own font
      expect(fontDict.get("OctavoF1").get("Subtype").asName()).toBe("Type0");
      // The page tree's resources stay as they were.
      expect(page.get("Parent", "Resources", "Font", "OctavoF1").isNull()).toBe(true);
    });
  });

  it("refuses encrypted and mislabeled files, and rebuilds or refuses damaged ones", async () => {
    const encrypted = await failureOf(
      watermark(corpus("encrypted/pypdf_r4-aes-user-password.pdf"), options(), await context()),
    );
    expect(encrypted.code).toBe("password_required");
    const mislabeled = await failureOf(
      watermark(corpus("mislabeled/pydocx_test_docx_renamed.pdf"), options(), await context()),
    );
    expect(mislabeled.code).toBe("invalid_input");

    const outcomes: Record<string, string> = {};
    for (const file of [
      "broken/cabinet_corruptionOneByteMissing.pdf",
      "broken/pikepdf_content-stream-errors.pdf",
      "broken/govdocs_error_set_2_498264.pdf",
      "broken/qpdf_pages-loop.pdf",
      "broken/ocrmypdf_invalid.pdf",
    ]) {
      try {
        const result = await watermark(corpus(file), options(), await context());
        const output = result.outputs[0]?.path ?? "";
        expect([0, 3]).toContain((await qpdfCheck(output)).code);
        const marks = (await pageTexts(output)).map((text) => text.includes("CONFIDENTIAL"));
        expect(marks.every(Boolean)).toBe(true);
        expect(result.warnings.length).toBeGreaterThan(0);
        outcomes[file] = result.warnings.some((warning) => warning.includes("rewrote the page content"))
          ? "content rewritten"
          : "rebuilt";
      } catch (error) {
        if (!(error instanceof JobFailure)) throw error;
        outcomes[file] = error.code;
      }
    }
    expect(outcomes).toEqual({
      "broken/cabinet_corruptionOneByteMissing.pdf": "rebuilt",
      // An inline image runs to the end of the content: the stamp would never be drawn after it.
      "broken/pikepdf_content-stream-errors.pdf": "content rewritten",
      // Undecodable content streams, which fail qpdf --check.
      "broken/govdocs_error_set_2_498264.pdf": "content rewritten",
      "broken/qpdf_pages-loop.pdf": "invalid_input",
      "broken/ocrmypdf_invalid.pdf": "invalid_input",
    });
  });
});

/** The decoded content streams of a page, in order. */
function streamsOf(page: Mupdf.PDFObject): string[] {
  const contents = page.get("Contents");
  if (contents.isStream()) return [contents.readStream().asString()];
  const streams: string[] = [];
  for (let index = 0; index < contents.length; index += 1)
    streams.push(contents.get(index).readStream().asString());
  return streams;
}
