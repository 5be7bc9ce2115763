import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { imageRenderLimits } from "@octavo/contracts";
import { manyPagesPdf } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { type PdfToImageOptions, pdfToImage } from "../src/index.js";
import {
  annotatedPdf,
  blankPagesPdf,
  context,
  corpus,
  failureOf,
  filesUnder,
  qualitySample,
  scratch,
} from "./helpers.js";
import {
  imageInfo,
  pixelAt,
  popplerPages,
  popplerRender,
  type Similarity,
  similarityToReference,
} from "./readers.js";

const png = (extra: Partial<PdfToImageOptions> = {}): PdfToImageOptions => ({
  format: "png",
  dpi: 150,
  quality: 85,
  ...extra,
});

/** Within this of a whole pixel, a product such as 612 × 150 / 72 is that pixel, not a float error over it. */
const floatSlack = 0.001;
/** How many pixels a page side of `points` takes at `dpi`, counting a partly covered one, as pdftoppm does. */
const pixels = (points: number, dpi: number) => Math.ceil((points * dpi) / 72 - floatSlack);

describe("page size", () => {
  // Rotated pages (/Rotate 90 and 270), a CropBox inside its MediaBox, an odd scanned size.
  const files = [
    "tables/tabula_schools.pdf",
    "office/docling_odf_presentation_01.odp.reference.pdf",
    "tables/camelot_population_growth.pdf",
    "scanned/ocrmypdf_c02-22.pdf",
  ];

  it.each(files)(
    "%s: every page is its visible size × dpi / 72, rotation applied (pdfinfo)",
    async (file) => {
      const input = corpus(file);
      const dpi = 50;
      const result = await pdfToImage(input, png({ dpi }), await context());
      const pages = await popplerPages(input.path);
      expect(result.outputs).toHaveLength(pages.length);
      for (const [index, page] of pages.entries()) {
        const image = await imageInfo(result.outputs[index]?.path ?? "");
        expect([image.width, image.height]).toEqual([
          pixels(page.visibleWidth, dpi),
          pixels(page.visibleHeight, dpi),
        ]);
      }
    },
  );

  it("the fixtures hold what the sizes are tested on", async () => {
    const [schools] = await popplerPages(corpus(files[0] ?? "").path);
    const [slides] = await popplerPages(corpus(files[1] ?? "").path);
    const [cropped] = await popplerPages(corpus(files[2] ?? "").path);
    expect(schools?.rotation).toBe(90);
    expect(slides?.rotation).toBe(270);
    // A MediaBox-sized image would be 100 points wider and 44 taller than the visible page.
    expect(cropped?.cropBox).not.toEqual(cropped?.mediaBox);
    expect((cropped?.mediaBox[2] ?? 0) - (cropped?.cropBox[2] ?? 0)).toBeGreaterThan(40);
  });
});

describe("formats", () => {
  const input = corpus("tables/tabula_schools.pdf", "schools.pdf");

  it.each([
    ["png", "png", "image/png"],
    ["jpeg", "jpg", "image/jpeg"],
    ["webp", "webp", "image/webp"],
  ] as const)(
    "%s: decodes to the page's size, in its format and content type",
    async (format, extension, type) => {
      const dpi = 72;
      const result = await pdfToImage(input, png({ format, dpi, pages: "1-2" }), await context());
      const [first] = await popplerPages(input.path);
      expect(result.outputs.map((output) => output.name)).toEqual([
        `schools-p1.${extension}`,
        `schools-p2.${extension}`,
      ]);
      for (const output of result.outputs) {
        expect(output.contentType).toBe(type);
        const image = await imageInfo(output.path);
        expect(image.format).toBe(format);
        expect([image.width, image.height]).toEqual([
          pixels(first?.visibleWidth ?? 0, dpi),
          pixels(first?.visibleHeight ?? 0, dpi),
        ]);
        expect(image.channels).toBe(3);
      }
      expect(result.engine).toBe(format === "png" ? "mupdf" : "mupdf + sharp");
    },
  );

  it.each(["png", "jpeg"] as const)("%s carries the dpi as its resolution", async (format) => {
    const result = await pdfToImage(input, png({ format, dpi: 96, pages: "1" }), await context());
    expect((await imageInfo(result.outputs[0]?.path ?? "")).density).toBe(96);
  });

  it.each(["jpeg", "webp"] as const)("%s: a lower quality gives a smaller file", async (format) => {
    const sizeAt = async (quality: number) => {
      const result = await pdfToImage(input, png({ format, quality, pages: "2" }), await context());
      return (await stat(result.outputs[0]?.path ?? "")).size;
    };
    const low = await sizeAt(20);
    const high = await sizeAt(95);
    expect(low).toBeLessThan(high * 0.6);
  });

  it("draws annotation appearances, not only the page content", async () => {
    const input = await annotatedPdf(await scratch());
    const result = await pdfToImage(input, png({ dpi: 72 }), await context());
    // The square covers 50–150 pt of a blank 200 pt page: red inside, white outside.
    expect(await pixelAt(result.outputs[0]?.path ?? "", 100, 100)).toEqual([255, 0, 0]);
    expect(await pixelAt(result.outputs[0]?.path ?? "", 10, 10)).toEqual([255, 255, 255]);
  });
});

describe("options", () => {
  const input = corpus("scanned/ocrmypdf_c02-22.pdf"); // one page, 384 × 470.88 pt

  it("accepts the dpi bounds 36 and 600", async () => {
    for (const dpi of [36, 600]) {
      const result = await pdfToImage(input, png({ dpi }), await context());
      const image = await imageInfo(result.outputs[0]?.path ?? "");
      expect([image.width, image.height]).toEqual([pixels(384, dpi), pixels(470.88, dpi)]);
    }
  });

  it.each([
    [{ dpi: 35 }, /dpi option must be a whole number from 36 to 600/],
    [{ dpi: 601 }, /dpi option must be a whole number from 36 to 600/],
    [{ dpi: 150.5 }, /dpi option/],
    [{ quality: 0 }, /quality option must be a whole number from 1 to 100/],
    [{ quality: 101 }, /quality option/],
    [{ format: "gif" as "png" }, /format option "gif" is not supported/],
    [{ pages: "2-1" }, /not a valid page list/],
  ])("refuses %j with invalid_input", async (options, message) => {
    const failure = await failureOf(pdfToImage(input, png(options), await context()));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(message);
  });
});

describe("page selection", () => {
  it("renders each selected page once, in page order, named after the input", async () => {
    const input = corpus("tables/tabula_schools.pdf", "Schools Report.PDF");
    const result = await pdfToImage(input, png({ dpi: 36, pages: "5,2-3,3" }), await context());
    expect(result.outputs.map((output) => output.name)).toEqual([
      "Schools Report-p2.png",
      "Schools Report-p3.png",
      "Schools Report-p5.png",
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("renders every page when none is selected, reporting progress per page", async () => {
    const fractions: number[] = [];
    const result = await pdfToImage(
      corpus("tables/tabula_schools.pdf"),
      png({ dpi: 36 }),
      await context({ onProgress: (fraction) => fractions.push(fraction) }),
    );
    expect(result.outputs.map((output) => output.name)).toEqual(
      [1, 2, 3, 4, 5].map((page) => `tabula_schools-p${page}.png`),
    );
    expect(fractions.length).toBeGreaterThanOrEqual(5);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBe(1);
  });

  it("refuses pages beyond the document", async () => {
    const failure = await failureOf(
      pdfToImage(corpus("tables/tabula_schools.pdf"), png({ pages: "4-6" }), await context()),
    );
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(/4-6 is outside tabula_schools\.pdf, which has 5 pages/);
  });
});

describe("limits, checked before anything is drawn", () => {
  /** Runs a job that must be refused, and checks that it drew nothing. */
  async function refused(input: { path: string; name: string }, options: PdfToImageOptions) {
    const fractions: number[] = [];
    const ctx = await context({ onProgress: (fraction) => fractions.push(fraction) });
    const started = performance.now();
    const failure = await failureOf(pdfToImage(input, options, ctx));
    expect(failure.code).toBe("invalid_input");
    expect(fractions).toEqual([]);
    expect(await filesUnder(ctx.workDir)).toEqual([]);
    return { failure, seconds: (performance.now() - started) / 1000 };
  }

  it("refuses more pixels in all than the cap (117 A4 pages at 600 dpi), naming a dpi that fits", async () => {
    const input = corpus("general/samplefiles_GeoTopo-komprimiert.pdf");
    const { failure, seconds } = await refused(input, png({ dpi: 600 }));
    expect(failure.message).toContain("1,500,000,000 pixels");
    expect(failure.message).toMatch(/fewer pages/);
    expect(failure.message).toMatch(/lower dpi/);
    expect(seconds).toBeLessThan(20);
    // The dpi it names fits, and the next one does not (sizes from pdfinfo).
    const fits = Number(/\((\d+) or lower fits\)/.exec(failure.message)?.[1]);
    const pages = await popplerPages(input.path);
    const total = (dpi: number) =>
      pages.reduce((sum, page) => sum + pixels(page.visibleWidth, dpi) * pixels(page.visibleHeight, dpi), 0);
    expect(total(fits)).toBeLessThanOrEqual(imageRenderLimits.maxTotalPixels);
    expect(total(fits + 1)).toBeGreaterThan(imageRenderLimits.maxTotalPixels);
  });

  it("refuses a page larger than the per-page cap", async () => {
    const input = await blankPagesPdf(await scratch(), [
      [612, 792],
      [14_400, 14_400],
    ]);
    const { failure } = await refused(input, png({ dpi: 72 }));
    expect(failure.message).toMatch(/Page 2 of blank-pages\.pdf would be 14,400 × 14,400/);
    expect(failure.message).toContain("at most 100,000,000 pixels");
    expect(failure.message).toMatch(/lower dpi \(50 or lower fits\)/); // 10,000² ≤ 10⁸ < 10,200²
  });

  it("refuses more pages than the cap", async () => {
    const dir = await scratch();
    const path = join(dir, "many.pdf");
    await writeFile(path, manyPagesPdf(imageRenderLimits.maxPages + 1));
    const { failure } = await refused({ path, name: "many.pdf" }, png({ dpi: 36 }));
    expect(failure.message).toContain("at most 1,000 pages");
    expect(failure.message).toMatch(/Select fewer pages \(for example 1-1000\)/);
  });

  it("refuses a WebP side beyond the format's limit, which PNG has not", async () => {
    const input = await blankPagesPdf(await scratch(), [[8_000, 100]]); // 16,667 × 209 at 150 dpi
    const { failure } = await refused(input, png({ format: "webp" }));
    expect(failure.message).toMatch(/WebP images can be at most 16,383 pixels/);
    const result = await pdfToImage(input, png(), await context());
    expect((await imageInfo(result.outputs[0]?.path ?? "")).width).toBe(pixels(8_000, 150));
  });
});

describe("inputs", () => {
  it("an encrypted file → password_required", async () => {
    const failure = await failureOf(pdfToImage(corpus("encrypted/qpdf_c-r6-in.pdf"), png(), await context()));
    expect(failure.code).toBe("password_required");
  });

  it("a PNG named .pdf → invalid_input", async () => {
    const failure = await failureOf(
      pdfToImage(corpus("mislabeled/ocrmypdf_typewriter_png_renamed.pdf"), png(), await context()),
    );
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(/not a PDF: .*PNG image/);
  });

  it("a damaged file is rebuilt, and the result says so", async () => {
    const result = await pdfToImage(
      corpus("broken/cabinet_corruptionOneByteMissing.pdf", "report.pdf"),
      png({ dpi: 36 }),
      await context(),
    );
    expect(result.outputs.map((output) => output.name)).toEqual(["report-p1.png"]);
    expect(result.warnings).toEqual([expect.stringMatching(/^report\.pdf is damaged; \S+ reconstructed it/)]);
  });

  it("a file beyond repair → invalid_input", async () => {
    const failure = await failureOf(
      pdfToImage(corpus("broken/ocrmypdf_invalid.pdf"), png(), await context()),
    );
    expect(failure.code).toBe("invalid_input");
  });
});

/**
 * Our PNGs against poppler's, over corpus files taken by a rule (`qualitySample`), first two pages at
 * the default 150 dpi, by SSIM (ssim.js defaults, which scale both images down as Wang et al.
 * recommend). Asserted: the mean against `pdftoppm -r 150` itself, and against poppler drawing the page
 * at 4 × the dpi reduced to our size, which judges what the page shows (text, images, transparency,
 * position) apart from how either renderer antialiases edges at that resolution. Printed: both, and the
 * first at full resolution, where antialiasing weighs most.
 */
describe("rendering quality against poppler", () => {
  // The product's default resolution.
  const dpi = 150;
  const supersampling = 4;

  it("our PNGs match poppler's (mean SSIM ≥ 0.98 over the sample)", { timeout: 300_000 }, async () => {
    const sample = qualitySample();
    expect(sample.length).toBeGreaterThanOrEqual(8);
    const rows: { file: string; pages: number; supersampled: Similarity; direct: Similarity }[] = [];
    for (const file of sample) {
      const input = corpus(file);
      const pages = Math.min(2, (await popplerPages(input.path)).length);
      const result = await pdfToImage(input, png({ dpi, pages: `1-${pages}` }), await context());
      const supersampled: Similarity[] = [];
      const direct: Similarity[] = [];
      for (const [index, output] of result.outputs.entries()) {
        const page = index + 1;
        const large = await popplerRender(input.path, page, dpi * supersampling);
        supersampled.push(await similarityToReference(output.path, large, { supersampled: true }));
        await rm(large); // 100 MB for an A4 page at 600 dpi
        const reference = await popplerRender(input.path, page, dpi);
        direct.push(await similarityToReference(output.path, reference));
      }
      rows.push({ file, pages, supersampled: meanOf(supersampled), direct: meanOf(direct) });
    }
    const overall = meanOf(rows.map((row) => row.supersampled));
    const direct = meanOf(rows.map((row) => row.direct));
    const figures = (label: string, a: Similarity, b: Similarity) =>
      `  ${a.standard.toFixed(4)}  ${b.standard.toFixed(4)}  ${b.fullResolution?.toFixed(4)}  ${label}`;
    console.log(
      [
        `SSIM of our PNG at ${dpi} dpi against poppler (pdftoppm -cropbox), first ≤ 2 pages; columns:`,
        `  poppler at ${dpi * supersampling} dpi reduced (ssim.js defaults) | poppler at ${dpi} dpi (defaults) | the same at full resolution`,
        ...rows.map((row) => figures(`${row.file} (${row.pages} p.)`, row.supersampled, row.direct)),
        figures("mean", overall, direct),
      ].join("\n"),
    );
    expect(direct.standard).toBeGreaterThanOrEqual(0.98);
    expect(overall.standard).toBeGreaterThanOrEqual(0.98);
  });
});

function meanOf(values: Similarity[]): Similarity {
  return {
    standard: mean(values.map((value) => value.standard)),
    fullResolution: mean(values.map((value) => value.fullResolution ?? Number.NaN)),
  };
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
