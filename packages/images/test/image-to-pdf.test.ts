import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { crc32 } from "node:zlib";
import { type EngineInput, withPdf } from "@octavo/engines";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { type ImageToPdfOptions, imageToPdf } from "../src/index.js";
import { context, failureOf, fixture, scratch } from "./helpers.js";
import {
  decodedStream,
  extractImages,
  listImages,
  meanDifference,
  type PopplerPage,
  popplerPages,
  qpdfCheck,
  type Rgba,
  renderPage,
  rgbaOf,
  shownImage,
  similarity,
  storedPixels,
  withImageObjects,
} from "./readers.js";

const fit: ImageToPdfOptions = { pageSize: "fit", orientation: "auto", margin: "none" };
const a4 = { width: 595.28, height: 841.89 };
const letter = { width: 612, height: 792 };

/** The inputs converted in one job; its PDF must pass qpdf --check. */
async function convertInputs(inputs: EngineInput[], options: ImageToPdfOptions = fit) {
  const result = await imageToPdf(inputs, options, await context());
  const pdf = result.outputs[0]?.path ?? "";
  expect(await qpdfCheck(pdf)).toBe(0);
  return { result, pdf };
}

function convert(files: string[], options: ImageToPdfOptions = fit) {
  return convertInputs(
    files.map((file) => fixture(file)),
    options,
  );
}

/** The JobFailure converting `inputs` ends in. */
async function refusal(inputs: EngineInput[]) {
  return failureOf(imageToPdf(inputs, fit, await context()));
}

/** The size a fit page has: the image's pixels at its own resolution (72 dpi when it gives none). */
async function naturalSize(file: string, page = 0): Promise<{ width: number; height: number }> {
  const meta = await sharp(fixture(file).path, { page }).metadata();
  const dpi = meta.density ?? 72;
  return { width: (meta.width * 72) / dpi, height: (meta.height * 72) / dpi };
}

function expectWithin(actual: number | undefined, expected: number, label: string, tolerance = 1) {
  expect(
    Math.abs((actual ?? Number.NaN) - expected),
    `${label}: ${actual} for ${expected}`,
  ).toBeLessThanOrEqual(tolerance);
}

/** The page's size as poppler shows it, in points, to within 0.05. */
function expectSize(actual: PopplerPage | undefined, width: number, height: number) {
  expect(actual?.visibleWidth).toBeCloseTo(width, 1);
  expect(actual?.visibleHeight).toBeCloseTo(height, 1);
}

/** Where MuPDF finds each page's image (x, y from the top left, in points). */
function imageBoxes(pdf: string): Promise<{ x: number; y: number; w: number; h: number }[]> {
  return withPdf(pdf, (doc) =>
    Array.from({ length: doc.countPages() }, (_, index) => {
      const text = doc.loadPage(index).toStructuredText("preserve-images");
      const blocks = JSON.parse(text.asJSON()) as {
        blocks: { type: string; bbox: { x: number; y: number; w: number; h: number } }[];
      };
      text.destroy();
      const image = blocks.blocks.find((block) => block.type === "image");
      if (image === undefined) throw new Error(`no image on page ${index + 1}`);
      return image.bbox;
    }),
  );
}

function turned180(image: Rgba): Promise<Rgba> {
  const { width, height } = image;
  return rgbaOf(sharp(Buffer.from(image.data), { raw: { width, height, channels: 4 } }).rotate(180));
}

describe("imageToPdf", () => {
  it("makes a page per image in the order sent (every TIFF frame, a GIF's first), named after the first", async () => {
    const files = [
      "congress-360dpi.jpg",
      "lo-statusbar-alpha-icc.png",
      "multipage.tif",
      "lo-marchingants-animated.gif",
    ];
    const inputs = files.map((file, index) => fixture(file, index === 0 ? "Holiday 2024.jpeg" : file));
    const { result, pdf } = await convertInputs(inputs);
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]?.name).toBe("Holiday 2024.pdf");
    expect(result.outputs[0]?.contentType).toBe("application/pdf");
    expect(result.warnings).toEqual([
      "lo-marchingants-animated.gif is animated; only its first frame was converted.",
    ]);

    const drawn = (await listImages(pdf)).filter((image) => image.type === "image");
    expect(drawn.map(({ page, width, height }) => [page, width, height])).toEqual([
      [1, 1000, 1520],
      [2, 150, 150],
      [3, 900, 900],
      [4, 998, 662],
      [5, 2550, 3300],
      [6, 164, 180],
    ]);
    const sizes = await popplerPages(pdf);
    expectSize(sizes[0], 200, 304); // 1000 × 1520 pixels at 360 dpi
    const expected = [
      await naturalSize("congress-360dpi.jpg"),
      await naturalSize("lo-statusbar-alpha-icc.png"),
      await naturalSize("multipage.tif", 0),
      await naturalSize("multipage.tif", 1),
      await naturalSize("multipage.tif", 2),
      await naturalSize("lo-marchingants-animated.gif"),
    ];
    expect(sizes).toHaveLength(expected.length);
    for (const [index, size] of expected.entries()) expectSize(sizes[index], size.width, size.height);
  });

  it("embeds JPEG files byte for byte (baseline, progressive, grey, CMYK, with profiles and EXIF)", async () => {
    const files = [
      "congress-360dpi.jpg",
      "francais-gray.jpg",
      "govdocs-cmyk.jpg",
      "ibm-cmyk-icc.jpg",
      "japan-icc-144dpi.jpg",
      "datagov-orient-6.jpg",
      "datagov-progressive.jpg",
    ];
    const { pdf } = await convert(files);
    const listed = await listImages(pdf);
    expect(listed.map((image) => image.encoding)).toEqual(files.map(() => "jpeg"));
    expect(listed[1]?.color).toBe("gray"); // greyscale stays greyscale
    const extracted = await extractImages(pdf, ["-all"]);
    expect(extracted).toHaveLength(files.length);
    for (const [index, file] of files.entries()) {
      expect(extracted[index]?.endsWith(".jpg")).toBe(true);
      const same = (await readFile(extracted[index] ?? "")).equals(await readFile(fixture(file).path));
      expect(same, `${file} is not embedded byte for byte`).toBe(true);
    }
  });

  it.each([
    ["datagov-orient-3.jpg", 636, 512],
    ["datagov-orient-6.jpg", 512, 636],
    ["datagov-orient-8.jpg", 512, 636],
  ])("draws %s upright, as viewers show it (EXIF orientation)", async (file, width, height) => {
    const { pdf } = await convert([file]);
    expectSize((await popplerPages(pdf))[0], width, height);
    const page = await renderPage(pdf, 1, 72);
    const upright = await shownImage(fixture(file).path, page.width, page.height);
    expect(similarity(page, upright)).toBeGreaterThan(0.95);
    // The test can tell a wrong turn: the same picture turned a half turn further scores far lower.
    expect(similarity(page, await turned180(upright))).toBeLessThan(0.5);
  });

  it("embeds other formats losslessly: PNG (16-bit, alpha, palette, 1-bit), WebP, GIF, BMP, TIFF (grey, RGB, G4, CMYK)", async () => {
    // Each file's pages, and whether each has a soft mask (alpha that is not opaque everywhere).
    const cases: { file: string; page?: number; alpha: boolean; color: string; bits: number }[] = [
      { file: "rickshaw-status-16bit.png", alpha: false, color: "rgb", bits: 16 },
      { file: "rickshaw-status-16bit-alpha.png", alpha: true, color: "rgb", bits: 16 },
      { file: "lo-statusbar-alpha-icc.png", alpha: true, color: "icc", bits: 8 },
      { file: "eu021-palette.png", alpha: false, color: "index", bits: 8 },
      { file: "ccitt-1bit.png", alpha: false, color: "gray", bits: 1 },
      { file: "scan-2400dpi-gray.png", alpha: false, color: "gray", bits: 8 },
      { file: "deu-lossless.webp", alpha: false, color: "rgb", bits: 8 },
      { file: "tk-taiku-transparent.gif", alpha: true, color: "rgb", bits: 8 },
      { file: "multipage.tif", page: 0, alpha: false, color: "gray", bits: 8 },
      { file: "multipage.tif", page: 1, alpha: false, color: "rgb", bits: 8 },
      { file: "multipage.tif", page: 2, alpha: false, color: "gray", bits: 1 },
      { file: "govdocs-cmyk.tif", alpha: false, color: "cmyk", bits: 8 },
    ];
    const files = [...new Set(cases.map((entry) => entry.file))];
    const { pdf } = await convert(files);
    const listed = await listImages(pdf);
    const expectedList = cases.flatMap((entry, index) => [
      { page: index + 1, type: "image", color: entry.color, bits: entry.bits },
      ...(entry.alpha ? [{ page: index + 1, type: "smask", color: "gray", bits: entry.bits }] : []),
    ]);
    expect(
      listed.map(({ page, type, color, bitsPerComponent }) => ({
        page,
        type,
        color,
        bits: bitsPerComponent,
      })),
    ).toEqual(expectedList);
    expect(listed.every((image) => image.encoding === "image")).toBe(true); // Flate, never JPEG

    // pdfimages turns the images into PNG files (TIFF for CMYK) that sharp decodes; poppler 22.12 writes
    // 16-bit images as zeros, so those are compared on the samples qpdf decodes from the streams instead.
    const png = await extractImages(pdf, ["-png"]);
    const cmykPage = cases.findIndex((entry) => entry.color === "cmyk") + 1;
    const tiff = await extractImages(pdf, ["-tiff", "-f", String(cmykPage), "-l", String(cmykPage)]);
    const objects = await withImageObjects(pdf, (images) => ({
      image: images[0]?.asIndirect() ?? 0,
      smask: images[0]?.get("SMask").asIndirect() ?? 0,
    }));
    let next = 0;
    for (const [index, entry] of cases.entries()) {
      const source = fixture(entry.file).path;
      const original = await storedPixels(source, { page: entry.page, select: "colour" });
      const alpha = entry.alpha
        ? await storedPixels(source, { page: entry.page, select: "alpha" })
        : undefined;
      if (entry.bits === 16) {
        const colour = await decodedStream(pdf, objects[index]?.image ?? 0);
        expect(colour.equals(bigEndian(original.data)), `${entry.file} colour samples`).toBe(true);
        if (alpha !== undefined) {
          const mask = await decodedStream(pdf, objects[index]?.smask ?? 0);
          expect(mask.equals(bigEndian(alpha.data)), `${entry.file} alpha samples`).toBe(true);
        }
      } else {
        const colour = await storedPixels((entry.color === "cmyk" ? tiff[0] : png[next]) ?? "");
        expect(colour.channels, `${entry.file} channels`).toBe(original.channels);
        expect(colour.data.equals(original.data), `${entry.file} colour samples`).toBe(true);
        if (alpha !== undefined) {
          const mask = await storedPixels(png[next + 1] ?? "");
          expect(mask.data.equals(alpha.data), `${entry.file} alpha samples`).toBe(true);
        }
      }
      next += entry.alpha ? 2 : 1;
    }
  });

  it("embeds an arithmetic-coded JPEG's pixels losslessly instead, saying so", async () => {
    const { result, pdf } = await convert(["datagov-arithmetic.jpg"]);
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^datagov-arithmetic\.jpg uses a JPEG coding that PDF readers do not all support \(arithmetic coding\)/,
      ),
    ]);
    expect((await listImages(pdf)).map((image) => image.encoding)).toEqual(["image"]);
    const [extracted] = await extractImages(pdf, ["-png"]);
    const decoded = await storedPixels(extracted ?? "");
    const original = await storedPixels(fixture("datagov-arithmetic.jpg").path);
    expect(decoded.data.equals(original.data)).toBe(true);
  });

  it("embeds BMP files losslessly (MuPDF decodes them; sharp cannot)", async () => {
    const files = ["lo-flowers-24bit.bmp", "tk-logo-8bit.bmp"];
    const { pdf } = await convert(files);
    const extracted = await extractImages(pdf, ["-png"]);
    expect(extracted).toHaveLength(2);
    for (const [index, file] of files.entries()) {
      const decoded = await storedPixels(extracted[index] ?? "");
      const expected = bmpSamples(await readFile(fixture(file).path));
      expect([decoded.width, decoded.height, decoded.channels]).toEqual([expected.width, expected.height, 3]);
      expect(decoded.data.equals(expected.data), `${file} samples`).toBe(true);
    }
  });

  it("keeps embedded ICC profiles as ICCBased colour spaces with the profile's bytes", async () => {
    const files = ["japan-icc-144dpi.jpg", "ibm-cmyk-icc.jpg", "lo-statusbar-alpha-icc.png"];
    const { pdf } = await convert(files);
    const spaces = await withImageObjects(pdf, (images) => {
      const space = images[0]?.get("ColorSpace");
      return {
        family: space?.get(0).asName(),
        n: space?.get(1).get("N").asNumber(),
        profile: Buffer.from(space?.get(1).readStream().asUint8Array() ?? []),
      };
    });
    for (const [index, file] of files.entries()) {
      const icc = (await sharp(fixture(file).path).metadata()).icc;
      expect(icc).toBeDefined();
      expect(spaces[index]?.family).toBe("ICCBased");
      expect(spaces[index]?.n).toBe(file.includes("cmyk") ? 4 : 3);
      expect(spaces[index]?.profile.equals(icc ?? Buffer.alloc(0)), `${file} profile bytes`).toBe(true);
    }
  });

  it("keeps CMYK JPEGs CMYK, inverting Adobe ones with /Decode so they render as viewers show them", async () => {
    const files = ["govdocs-cmyk.jpg", "ibm-cmyk-icc.jpg", "govdocs-cmyk.tif"];
    const { pdf } = await convert(files);
    const dicts = await withImageObjects(pdf, (images) => ({
      space: images[0]?.get("ColorSpace").toString(),
      decode: images[0]?.get("Decode").toString(),
    }));
    expect(dicts[0]).toEqual({ space: "/DeviceCMYK", decode: "[1 0 1 0 1 0 1 0]" });
    expect(dicts[1]?.decode).toBe("[1 0 1 0 1 0 1 0]");
    expect(dicts[1]?.space).toMatch(/^\[\/ICCBased \d+ 0 R\]$/);
    expect(dicts[2]).toEqual({ space: "/DeviceCMYK", decode: "null" }); // a TIFF stores CMYK as it is
    for (const [index, file] of files.entries()) {
      const page = await renderPage(pdf, index + 1, 72);
      const shown = await shownImage(fixture(file).path, page.width, page.height);
      expect(similarity(page, shown), `${file} similarity`).toBeGreaterThan(0.95);
      expect(meanDifference(page, shown), `${file} colour difference`).toBeLessThan(6);
      // Inverted colours would be far off: the check can fail.
      const negative = await shownImage(fixture(file).path, page.width, page.height, (image) =>
        image.negate(),
      );
      expect(meanDifference(page, negative)).toBeGreaterThan(60);
    }
  });

  const sheets = { A4: a4, Letter: letter };
  const marginPoints = { none: 0, small: 18, normal: 36 };
  it.each([
    // A portrait scan with the normal margin: its height decides the scale.
    ["congress-360dpi.jpg", "A4", "auto", "normal", "portrait", [1000, 1520]],
    // A landscape screenshot, auto: the page turns; scaled up to the small margin.
    ["datagov-rgb.jpg", "Letter", "auto", "small", "landscape", [636, 512]],
    // The same on a portrait page when asked: its width decides.
    ["datagov-rgb.jpg", "Letter", "portrait", "none", "portrait", [636, 512]],
    // EXIF 6 makes the 636 × 512 screenshot portrait: auto keeps the page portrait.
    ["datagov-orient-6.jpg", "A4", "auto", "none", "portrait", [512, 636]],
    // A portrait scan on a landscape page when asked.
    ["congress-360dpi.jpg", "A4", "landscape", "small", "landscape", [1000, 1520]],
  ] as const)(
    "fits %s on %s (orientation %s, margin %s): a %s page, the image centred inside the margin",
    async (file, pageSize, orientation, margin, pageOrientation, [shownWidth, shownHeight]) => {
      const sheet = sheets[pageSize];
      const page = pageOrientation === "landscape" ? { width: sheet.height, height: sheet.width } : sheet;
      const inset = marginPoints[margin];
      const { pdf } = await convert([file], { pageSize, orientation, margin });
      expectSize((await popplerPages(pdf))[0], page.width, page.height);
      const scale = Math.min((page.width - 2 * inset) / shownWidth, (page.height - 2 * inset) / shownHeight);
      const box = (await imageBoxes(pdf))[0];
      const width = shownWidth * scale;
      const height = shownHeight * scale;
      // MuPDF reports the image's box on whole points.
      expectWithin(box?.w, width, "width");
      expectWithin(box?.h, height, "height");
      expectWithin(box?.x, (page.width - width) / 2, "x");
      expectWithin(box?.y, (page.height - height) / 2, "y");
      expect(Math.min(box?.x ?? 0, box?.y ?? 0)).toBeGreaterThanOrEqual(Math.floor(inset));
    },
  );

  it("adds the margin around the image on fit pages", async () => {
    const { pdf } = await convert(["lo-statusbar-alpha-icc.png", "datagov-orient-8.jpg"], {
      ...fit,
      margin: "small",
    });
    const sizes = await popplerPages(pdf);
    expectSize(sizes[0], 72 + 36, 72 + 36); // 150 pixels at 150 dpi, and 18 pt each side
    expectSize(sizes[1], 512 + 36, 636 + 36);
    const boxes = await imageBoxes(pdf);
    expect(boxes[0]).toEqual({ x: 18, y: 18, w: 72, h: 72 });
    expect(boxes[1]).toEqual({ x: 18, y: 18, w: 512, h: 636 });
  });

  it("keeps fit pages within PDF's page-size limits (3 to 14,400 pt a side), saying so", async () => {
    const dir = await scratch();
    // 8000 × 8 pixels at 30 dpi would be 19,200 pt wide; one pixel at 72 dpi would be 1 pt.
    const wide = join(dir, "banner.png");
    await sharp({ create: { width: 8000, height: 8, channels: 3, background: "#c03030" } })
      .withMetadata({ density: 30 })
      .png()
      .toFile(wide);
    const dot = join(dir, "dot.png");
    await sharp({ create: { width: 1, height: 1, channels: 3, background: "#3030c0" } })
      .png()
      .toFile(dot);
    const { result, pdf } = await convertInputs([
      { path: wide, name: "banner.png" },
      { path: dot, name: "dot.png" },
    ]);
    const sizes = await popplerPages(pdf);
    expectSize(sizes[0], 14_400, 14.4);
    expectSize(sizes[1], 3, 3);
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^banner\.png at its own resolution would make a page outside the sizes PDF allows/,
      ),
      expect.stringMatching(/^dot\.png at its own resolution/),
    ]);
  });

  it.each([
    ["png-named.jpg", /^png-named\.jpg is not a JPEG image: its content is a PNG image/],
    ["pdf-named.png", /^pdf-named\.png is not a PNG image: its content is a PDF document/],
    ["truncated.jpg", /^truncated\.jpg could not be read as a JPEG image: it is damaged or cut short/],
    ["truncated.png", /^truncated\.png could not be read as a PNG image: it is damaged or cut short/],
  ])("refuses %s with invalid_input, naming it and what is wrong", async (file, message) => {
    const failure = await refusal([fixture(file)]);
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(message);
  });

  it("names the bad file when it is not the first, and refuses other damage: zeroed, corrupt, cut, empty", async () => {
    const dir = await scratch();
    const write = async (name: string, bytes: Uint8Array) => {
      await writeFile(join(dir, name), bytes);
      return { path: join(dir, name), name };
    };
    const jpeg = await readFile(fixture("datagov-rgb.jpg").path);
    const png = await readFile(fixture("scan-2400dpi-gray.png").path);
    const bmp = await readFile(fixture("lo-flowers-24bit.bmp").path);
    const damaged = [
      // The scan's second half zeroed, the size unchanged (a download that stopped into a full-size file).
      {
        input: await write(
          "zeroed.jpg",
          Buffer.concat([jpeg.subarray(0, 30_000), Buffer.alloc(jpeg.length - 30_000)]),
        ),
        kind: "JPEG",
      },
      // Bytes changed inside the compressed rows: zlib's checksum no longer matches.
      { input: await write("flipped.png", Buffer.from(png).fill(0x55, 60_000, 60_100)), kind: "PNG" },
      { input: await write("cut.bmp", bmp.subarray(0, Math.floor(bmp.length * 0.6))), kind: "BMP" },
    ];
    for (const { input, kind } of damaged) {
      const inputs = [fixture("datagov-rgb.jpg"), { ...input, name: `scan 2 ${input.name}` }];
      const failure = await refusal(inputs);
      expect(failure.code, input.name).toBe("invalid_input");
      expect(failure.message).toMatch(
        new RegExp(`^scan 2 ${input.name.replace(".", "\\.")} could not be read as a ${kind} image`),
      );
    }
    const empty = await refusal([await write("empty.gif", Buffer.alloc(0))]);
    expect(empty.code).toBe("invalid_input");
    expect(empty.message).toMatch(/^empty\.gif is empty/);
  });

  it("refuses images over the pixel or decoded-size caps from their headers, before decoding", async () => {
    const dir = await scratch();
    const tooManyPixels = join(dir, "huge.png");
    await writeFile(tooManyPixels, pngHeaderOnly(20_000, 20_000, 8, 6)); // 400 megapixels
    const tooManyBytes = join(dir, "deep.png");
    await writeFile(tooManyBytes, pngHeaderOnly(12_000, 12_000, 16, 6)); // 144 MP × 8 bytes = 1.15 GB
    const bombJpeg = join(dir, "bomb.jpg");
    await writeFile(bombJpeg, withJpegSize(await readFile(fixture("datagov-rgb.jpg").path), 60_000, 60_000));

    const started = performance.now();
    const refusals = [
      [tooManyPixels, /^huge\.png is 20,000 × 20,000 pixels \(400,000,000\); at most 268,402,689/],
      [tooManyBytes, /^deep\.png would take 1,099 MB once decoded; at most 1,024 MB/],
      [bombJpeg, /^bomb\.jpg is 60,000 × 60,000 pixels/],
    ] as const;
    for (const [path, message] of refusals) {
      const failure = await refusal([{ path, name: basename(path) }]);
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toMatch(message);
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("takes 1 to 50 images and reports progress up to 1", async () => {
    const none = await refusal([]);
    expect(none.code).toBe("invalid_input");
    const tooMany = await refusal(Array.from({ length: 51 }, () => fixture("tk-logo-8bit.bmp")));
    expect(tooMany.code).toBe("invalid_input");
    expect(tooMany.message).toContain("51 were sent");

    const progress: number[] = [];
    const fifty = Array.from({ length: 50 }, (_, index) =>
      fixture(index % 2 ? "tk-logo-8bit.bmp" : "datagov-orient-3.jpg"),
    );
    const result = await imageToPdf(
      fifty,
      fit,
      await context({ onProgress: (value) => progress.push(value) }),
    );
    expect(await popplerPages(result.outputs[0]?.path ?? "")).toHaveLength(50);
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((value, index) => index === 0 || value >= (progress[index - 1] ?? 0))).toBe(true);
  });
});

/** sharp's 16-bit samples (machine order, little-endian here) in PDF's big-endian order. */
function bigEndian(samples: Buffer): Buffer {
  return Buffer.from(samples).swap16();
}

/** A PNG whose IHDR claims the size; one empty IDAT and IEND follow (nothing to decode). */
function pngHeaderOnly(width: number, height: number, bitDepth: number, colourType: number): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, "latin1"), body]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([bitDepth, colourType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The JPEG with its frame header's size changed (a header that claims far more pixels than the data holds). */
function withJpegSize(jpeg: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(jpeg);
  let at = 2;
  while (at < copy.length) {
    const marker = copy[at + 1] ?? 0;
    const length = copy.readUInt16BE(at + 2);
    if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) {
      copy.writeUInt16BE(height, at + 5);
      copy.writeUInt16BE(width, at + 7);
      return copy;
    }
    at += 2 + length;
  }
  throw new Error("no frame header");
}

/**
 * An uncompressed BMP's pixels as top-down RGB, read here from the file's own layout (an independent
 * decoder for the check): 24-bit BGR rows, or 8-bit indices into a BGRA palette; rows bottom-up, padded
 * to 4 bytes.
 */
function bmpSamples(bmp: Buffer): { width: number; height: number; data: Buffer } {
  const dataOffset = bmp.readUInt32LE(10);
  const headerSize = bmp.readUInt32LE(14);
  const width = bmp.readInt32LE(18);
  const height = bmp.readInt32LE(22);
  const bits = bmp.readUInt16LE(28);
  const compression = bmp.readUInt32LE(30);
  if (compression !== 0 || height <= 0 || (bits !== 24 && bits !== 8)) {
    throw new Error(`BMP layout not handled by the test: ${bits} bits, compression ${compression}`);
  }
  const stride = Math.ceil((width * bits) / 32) * 4;
  const palette = 14 + headerSize;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    const row = dataOffset + (height - 1 - y) * stride;
    for (let x = 0; x < width; x += 1) {
      const at = bits === 24 ? row + x * 3 : palette + (bmp[row + x] ?? 0) * 4;
      const to = (y * width + x) * 3;
      data[to] = bmp[at + 2] ?? 0;
      data[to + 1] = bmp[at + 1] ?? 0;
      data[to + 2] = bmp[at] ?? 0;
    }
  }
  return { width, height, data };
}
