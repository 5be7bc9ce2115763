import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { loadMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";
import { corpusPath, rejectionOf, runTool } from "@octavo/testing";
import { ssim } from "ssim.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedactionReport, type RedactOptions, redact } from "../src/redact.js";
import { helvetica, redactionSet } from "./redaction-set.js";

const paper = corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf");
const attachment = corpusPath("general/samplefiles_with-attachment.pdf");
const scan = corpusPath("scanned/tesseract_phototest.pdf");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "octavo-redact-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The redacted PDF, the one output, the report the job shows (never a file of its own), and its warnings. */
async function run(
  pdf: string,
  options: RedactOptions,
): Promise<{ pdf: string; report: RedactionReport; warnings: string[] }> {
  const result = await redact({ path: pdf, name: pdf.split("/").pop() ?? "in.pdf" }, options, {
    workDir: await mkdtemp(join(dir, "job-")),
  });
  expect(result.outputs.map((output) => output.contentType)).toEqual(["application/pdf"]);
  const [out] = result.outputs;
  if (out === undefined) throw new Error("missing output");
  return { pdf: out.path, report: result.report, warnings: result.warnings };
}

async function pdftotext(pdf: string): Promise<string> {
  return (await runTool("pdftotext", ["-q", "-enc", "UTF-8", pdf, "-"])).stdout;
}

/** Every stream decompressed, object streams unpacked (qpdf --qdf), as one byte string. */
async function decompressed(pdf: string): Promise<string> {
  const out = join(dir, `qdf-${Math.random().toString(36).slice(2)}.pdf`);
  await runTool("qpdf", ["--qdf", "--object-streams=disable", pdf, out]);
  return (await readFile(out)).toString("latin1");
}

const words = (text: string): string[] => text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));

/** A one-page PDF with `lines` of Helvetica text, made with MuPDF. */
async function textPdf(lines: string[]): Promise<string> {
  return contentPdf(
    lines
      .map(
        (line, index) => `BT /F1 11 Tf 72 ${740 - index * 18} Td (${line.replace(/[()\\]/g, "\\$&")}) Tj ET`,
      )
      .join("\n"),
  );
}

/**
 * A one-page PDF (US Letter) whose content stream is `content`, Helvetica as /F1, made with MuPDF; `extra`
 * adds to its resources and page dictionary.
 */
async function contentPdf(
  content: string,
  extra?: (
    mupdf: MupdfModule,
    doc: Mupdf.PDFDocument,
    resources: Mupdf.PDFObject,
    page: Mupdf.PDFObject,
  ) => void,
): Promise<string> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument();
  try {
    const resources = helvetica(mupdf, doc);
    const page = doc.addPage([0, 0, 612, 792], 0, resources, content);
    extra?.(mupdf, doc, resources, page);
    doc.insertPage(-1, page);
    const path = join(dir, `made-${Math.random().toString(36).slice(2)}.pdf`);
    await writeFile(path, doc.saveToBuffer("").asUint8Array());
    return path;
  } finally {
    doc.destroy();
  }
}

describe("redact", () => {
  it("removes every occurrence of the terms, keeps the other words, and reports counts without the text", async () => {
    const terms = ["JavaScript", "TraceMonkey", "Mozilla"];
    const before = await pdftotext(paper);
    const { pdf, report } = await run(paper, { text: terms });
    const after = await pdftotext(pdf);
    for (const term of terms) {
      expect(before.toLowerCase()).toContain(term.toLowerCase());
      expect(after.toLowerCase()).not.toContain(term.toLowerCase());
    }
    // Words that hold a term go; of the rest, at least 99.5 % stay.
    const holdsTerm = (word: string) => terms.some((term) => word.toLowerCase().includes(term.toLowerCase()));
    const kept = new Map<string, number>();
    for (const word of words(after)) kept.set(word, (kept.get(word) ?? 0) + 1);
    const others = words(before).filter((word) => !holdsTerm(word));
    let found = 0;
    for (const word of others) {
      const left = kept.get(word) ?? 0;
      if (left > 0) {
        found += 1;
        kept.set(word, left - 1);
      }
    }
    expect(found / others.length).toBeGreaterThanOrEqual(0.995);
    expect(report.total).toBeGreaterThan(20);
    // Each rule is named as its option; the total is every page's matches and areas.
    expect(report.pages[0]?.matches["text[0]"]).toBeGreaterThan(0);
    expect(new Set(report.pages.flatMap((page) => Object.keys(page.matches)))).toEqual(
      new Set(["text[0]", "text[1]", "text[2]"]),
    );
    const counted = report.pages.flatMap((page) => [...Object.values(page.matches), page.areas]);
    expect(counted.reduce((sum, value) => sum + value, 0)).toBe(report.total);
    expect(JSON.stringify(report)).not.toMatch(/JavaScript|TraceMonkey|Mozilla/i);
  });

  it("leaves no target in any decompressed stream, the metadata or an attachment", async () => {
    const { pdf } = await run(attachment, { text: ["image"], wholeWords: true });
    const bytes = await decompressed(pdf);
    expect(bytes).not.toMatch(/image\.png/);
    expect((await runTool("pdfdetach", ["-list", pdf])).stdout).toContain("0 embedded files");
    const info = (await runTool("pdfinfo", [pdf])).stdout;
    expect(info).not.toContain("pypdf");
  });

  it("finds the presets, checked by their check digits, and leaves look-alikes", async () => {
    const pdf = await textPdf([
      "Mail alice.smith@example.org today",
      "IBAN DE89 3704 0044 0532 0130 00 and a wrong one DE89 3704 0044 0532 0130 01",
      "Card 4111 1111 1111 1111 and not-a-card 4111 1111 1111 1112",
      "SSN 123-45-6789 but not 000-12-3456",
      "Hosts 192.168.10.20 and 2001:db8::8a2e:370:7334 but not 999.1.1.1",
      "Call +41 44 668 18 00",
    ]);
    const { pdf: out, report } = await run(pdf, {
      presets: ["email", "iban", "card", "ssn", "ipv4", "ipv6", "phone"],
    });
    const text = await pdftotext(out);
    for (const gone of [
      "alice.smith@example.org",
      "0130 00",
      "4111 1111 1111 1111",
      "123-45-6789",
      "192.168.10.20",
      "2001:db8::8a2e:370:7334",
      "668 18 00",
    ]) {
      expect(text).not.toContain(gone);
    }
    for (const kept of ["0130 01", "1111 1112", "000-12-3456", "999.1.1.1"]) expect(text).toContain(kept);
    expect(report.pages[0]?.matches).toMatchObject({ email: 1, iban: 1, card: 1, ssn: 1, ipv4: 1, ipv6: 1 });
  });

  it("removes text from Form XObjects and from show operators split by kerning, leaving no bytes of it", async () => {
    const content = [
      "BT /F1 12 Tf 72 700 Td [(Con)-20(fid)10(ential) -250 (memo)] TJ ET",
      "BT /F1 12 Tf 72 680 Td (Keep) Tj ( this) Tj ( line) Tj ET",
      "q 1 0 0 1 62 500 cm /Fx Do Q",
    ].join("\n");
    const path = await contentPdf(content, (mupdf, doc, resources) => {
      const formDict = doc.newDictionary();
      formDict.put("Type", doc.newName("XObject"));
      formDict.put("Subtype", doc.newName("Form"));
      const bbox = doc.newArray();
      for (const value of [0, 0, 400, 100]) bbox.push(doc.newReal(value));
      formDict.put("BBox", bbox);
      formDict.put("Resources", helvetica(mupdf, doc));
      const xobjects = doc.newDictionary();
      xobjects.put("Fx", doc.addStream("BT /F1 12 Tf 10 50 Td (Secret plan B) Tj ET", formDict));
      resources.put("XObject", xobjects);
    });
    const { pdf } = await run(path, { text: ["Confidential", "Secret plan"] });
    const text = await pdftotext(pdf);
    expect(text).not.toMatch(/Confidential|Secret/);
    expect(text).toContain("memo");
    expect(text).toContain("Keep this line");
    expect(text).toContain("B");
    const bytes = await decompressed(pdf);
    expect(bytes).not.toMatch(/Secret|fid\)|ential\)/);
  });

  it("takes RE2 patterns, which cannot backtrack, and refuses one RE2 cannot read", async () => {
    // The reference on a line of its own: a line longer than the page would run past its edge, out of sight.
    const pdf = await textPdf([`Order ${"a".repeat(60)}b`, "and reference REF-2026-0042"]);
    expect(await pdftotext(pdf)).toContain("REF-2026-0042");
    const started = performance.now();
    const { pdf: out, report } = await run(pdf, { patterns: ["REF-\\d{4}-\\d{4}", "(a+)+$"] });
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(await pdftotext(out)).not.toContain("REF-2026-0042");
    expect(report.pages).toEqual([{ page: 1, matches: { "patterns[0]": 1 }, areas: 0 }]);
    const failure = await rejectionOf(run(pdf, { patterns: ["(?<=x)y"] }), JobFailure);
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain("options.patterns[0]");
  });

  it("clears an area as displayed: its text is gone and its pixels are the fill", async () => {
    const pdf = await textPdf(["Top secret line", "Public line"]);
    const { pdf: out, report } = await run(pdf, {
      areas: [{ page: 1, rect: [60, 40, 300, 18] }],
      fill: "#FF0000",
    });
    expect(report).toEqual({ pages: [{ page: 1, matches: {}, areas: 1 }], total: 1 });
    const text = await pdftotext(out);
    expect(text).not.toContain("Top secret");
    expect(text).toContain("Public line");
    const stem = join(dir, "area");
    await runTool("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-singlefile", out, stem]);
    const ppm = await readFile(`${stem}.ppm`);
    const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 64).toString("latin1"));
    const width = Number(header?.[1]);
    const pixel = (x: number, y: number) => [
      ...ppm.subarray((header?.[0].length ?? 0) + (y * width + x) * 3).subarray(0, 3),
    ];
    expect(pixel(200, 49)).toEqual([255, 0, 0]);
  });

  /** Page 1 at 150 dpi as RGBA, with `boxes` ([x, y, w, h] in points as displayed) painted white. */
  async function maskedRender(pdf: string, boxes: [number, number, number, number][]) {
    const stem = join(dir, `render-${Math.random().toString(36).slice(2)}`);
    await runTool("pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-singlefile", pdf, stem]);
    const ppm = await readFile(`${stem}.ppm`);
    const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 64).toString("latin1"));
    const [width, height] = [Number(header?.[1]), Number(header?.[2])];
    const rgb = ppm.subarray(header?.[0].length ?? 0);
    const data = new Uint8ClampedArray(width * height * 4);
    const scale = 150 / 72;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const masked = boxes.some(
          ([bx, by, bw, bh]) =>
            x >= (bx - 2) * scale &&
            x <= (bx + bw + 2) * scale &&
            y >= (by - 2) * scale &&
            y <= (by + bh + 2) * scale,
        );
        for (let channel = 0; channel < 3; channel += 1) {
          data[(y * width + x) * 4 + channel] = masked ? 255 : (rgb[(y * width + x) * 3 + channel] ?? 255);
        }
        data[(y * width + x) * 4 + 3] = 255;
      }
    }
    return { data, width, height };
  }

  it("leaves the page outside the boxes as it was: SSIM >= 0.995 with the boxes masked, rotated pages too", async () => {
    const rotated = join(dir, "rotated-paper.pdf");
    await runTool("qpdf", [paper, "--rotate=+90:1", "--pages", ".", "1", "--", rotated]);
    const box: [number, number, number, number] = [100, 150, 200, 60];
    for (const pdf of [paper, rotated]) {
      const { pdf: out } = await run(pdf, { areas: [{ page: 1, rect: box }] });
      const score = ssim(await maskedRender(pdf, [box]), await maskedRender(out, [box])).mssim;
      expect(score, pdf).toBeGreaterThanOrEqual(0.995);
    }
  });

  it("overwrites an image's pixels under a box, keeping the rest of the image", async () => {
    const { pdf: out } = await run(scan, { areas: [{ page: 1, rect: [20, 20, 100, 40] }] });
    const before = join(dir, "img-before");
    const after = join(dir, "img-after");
    await runTool("pdfimages", ["-png", "-f", "1", "-l", "1", scan, before]);
    await runTool("pdfimages", ["-png", "-f", "1", "-l", "1", out, after]);
    const [original, redacted] = await Promise.all([
      readFile(`${before}-000.png`),
      readFile(`${after}-000.png`),
    ]);
    expect(redacted.equals(original)).toBe(false);
    // The words under the box are gone from the image, not only hidden by the box drawn over it.
    const text = (await runTool("tesseract", [`${after}-000.png`, "-", "--psm", "6"])).stdout;
    const originalText = (await runTool("tesseract", [`${before}-000.png`, "-", "--psm", "6"])).stdout;
    expect(originalText).toContain("This is a lot of 12 point text");
    expect(text).not.toContain("lot of 12");
    expect(text).toContain("text to test the");

    // pdfimages' own bitmap (PBM, 1 = black) of the redacted image: every pixel under the box is the fill.
    await runTool("pdfimages", ["-f", "1", "-l", "1", out, after]);
    const pbm = await readFile(`${after}-000.pbm`);
    const header = /^P4\s+(\d+)\s+(\d+)\s/.exec(pbm.subarray(0, 32).toString("latin1"));
    const [width, height] = [Number(header?.[1]), Number(header?.[2])];
    const bits = pbm.subarray(header?.[0].length ?? 0);
    const black = (x: number, y: number) =>
      ((bits[y * Math.ceil(width / 8) + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1;
    // The box in the image's pixels: the scan fills its page at 200 ppi; a pixel's margin for rounding.
    const ppi = 200 / 72;
    let under = 0;
    let notFill = 0;
    for (let y = Math.ceil(20 * ppi) + 1; y < Math.floor(60 * ppi) - 1; y += 1) {
      for (let x = Math.ceil(20 * ppi) + 1; x < Math.floor(120 * ppi) - 1; x += 1) {
        under += 1;
        if (black(x, y) !== 1) notFill += 1;
      }
    }
    expect([width, height]).toEqual([640, 480]);
    expect(under).toBeGreaterThan(20_000);
    expect(notFill).toBe(0);

    // A red fill in this gray image: its gray (luminance 0.2126 × 255 = 54), under the box and nowhere else.
    const { pdf: red } = await run(scan, { areas: [{ page: 1, rect: [20, 20, 100, 40] }], fill: "#FF0000" });
    const redStem = join(dir, "img-red");
    await runTool("pdfimages", ["-f", "1", "-l", "1", red, redStem]);
    // An ICC-based gray image: pdfimages writes it as RGB (PPM), each pixel's three channels equal.
    const ppm = await readFile(`${redStem}-000.ppm`);
    const rgb = /^P6\s+640\s+480\s+255\s/.exec(ppm.subarray(0, 32).toString("latin1"));
    expect(rgb).not.toBeNull();
    const level = (x: number, y: number) => {
      const at = (rgb?.[0].length ?? 0) + (y * 640 + x) * 3;
      const [r, g, b] = ppm.subarray(at, at + 3);
      return r === g && g === b ? r : -1;
    };
    const inside: number[] = [];
    for (let y = Math.ceil(20 * ppi) + 1; y < Math.floor(60 * ppi) - 1; y += 7) {
      for (let x = Math.ceil(20 * ppi) + 1; x < Math.floor(120 * ppi) - 1; x += 7)
        inside.push(level(x, y) ?? -1);
    }
    expect(new Set(inside)).toEqual(new Set([54]));
    // Outside the box the picture is the scan's: only black and white.
    const outside = new Set<number>();
    for (let y = Math.floor(70 * ppi); y < 480; y += 3) {
      for (let x = 0; x < 640; x += 3) outside.add(level(x, y) ?? -1);
    }
    expect(outside).toEqual(new Set([0, 255]));
  });

  it("paints the fill into an inline image's pixels under a box too, and keeps the other inline images' data", async () => {
    // A 40 × 20 mid-gray RGB image in hex, 200 × 100 pt at (100, 600); and 20 bytes of gray with " EI " in them,
    // unfiltered, which only their length tells apart from the end of the image.
    const gray = "abc EI abcdefghijklm";
    const pdf = await contentPdf(
      [
        `q 200 0 0 100 100 600 cm BI /W 40 /H 20 /BPC 8 /CS /RGB /F /AHx ID ${"80".repeat(40 * 20 * 3)}> EI Q`,
        `q 100 0 0 20 100 500 cm BI /W 10 /H 2 /BPC 8 /CS /G ID ${gray} EI Q`,
        "BT /F1 12 Tf 72 740 Td (Keep this) Tj ET",
      ].join("\n"),
    );
    // The image's left half, as displayed: from (100, 92) to (200, 192).
    const { pdf: out } = await run(pdf, { areas: [{ page: 1, rect: [100, 92, 100, 100] }], fill: "#FF0000" });
    expect(words(await pdftotext(out))).toEqual(["Keep", "this"]);
    const stem = join(dir, "inline");
    await runTool("pdfimages", [out, stem]);
    const ppm = await readFile(`${stem}-000.ppm`);
    const header = /^P6\s+40\s+20\s+255\s/.exec(ppm.subarray(0, 32).toString("latin1"));
    expect(header).not.toBeNull();
    const pixels = new Set<string>();
    for (let y = 0; y < 20; y += 1) {
      for (let x = 0; x < 40; x += 1) {
        const at = (header?.[0].length ?? 0) + (y * 40 + x) * 3;
        pixels.add(`${x < 20 ? "left" : "right"} ${[...ppm.subarray(at, at + 3)].join(",")}`);
      }
    }
    expect([...pixels].sort()).toEqual(["left 255,0,0", "right 128,128,128"]);
    // pdfimages writes the gray image as RGB: each pixel's three channels are the byte the content gave.
    const second = await readFile(`${stem}-001.ppm`);
    const levels = second.subarray(second.length - gray.length * 3).filter((_, at) => at % 3 === 0);
    expect(Buffer.from(levels).toString("latin1")).toBe(gray);
  });

  it("sanitize removes the text a reader cannot see and keeps what they can, a scan's OCR layer too", async () => {
    const content = [
      "BT /F1 12 Tf 72 740 Td (Visible alpha) Tj ET",
      // White on the white page.
      "BT 1 g /F1 12 Tf 72 720 Td (Whiteink bravo) Tj ET",
      // White on a dark box: seen.
      "q 0 0 0.4 rg 70 690 200 20 re f Q BT 1 g /F1 12 Tf 72 695 Td (Onnavy charlie) Tj ET",
      // Invisible (render mode 3), on nothing.
      "BT 3 Tr /F1 12 Tf 72 660 Td (Ghostly delta) Tj ET",
      // Covered by a white box drawn after it: a fake redaction.
      "BT /F1 12 Tf 72 630 Td (Covered echo) Tj ET q 1 1 1 rg 70 625 150 20 re f Q",
      // Below the crop box.
      "BT /F1 12 Tf 72 50 Td (Offcrop foxtrot) Tj ET",
      // A scan and its invisible text layer: seen as the picture.
      "q 200 0 0 100 72 400 cm /Im1 Do Q BT 3 Tr /F1 12 Tf 80 450 Td (Scanned golf) Tj ET",
      // Under an opaque image drawn after it.
      "BT /F1 12 Tf 80 300 Td (Underimage hotel) Tj ET q 200 0 0 50 72 280 cm /Im1 Do Q",
    ]
      // Each in its own graphics state: a colour or render mode set in one does not carry to the next.
      .map((drawing) => `q ${drawing} Q`)
      .join("\n");
    const path = await contentPdf(content, (mupdf, doc, resources, page) => {
      const grey = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, 8, 8], false);
      grey.clear(128);
      const xobjects = doc.newDictionary();
      xobjects.put("Im1", doc.addImage(new mupdf.Image(grey)));
      resources.put("XObject", xobjects);
      const crop = doc.newArray();
      for (const value of [0, 100, 612, 792]) crop.push(doc.newReal(value));
      page.put("CropBox", crop);
    });
    const hiddenWords = ["Whiteink", "Ghostly", "Covered", "Offcrop", "Underimage"];
    const seenWords = ["Visible", "Onnavy charlie", "Scanned golf"];
    const before = await decompressed(path);
    for (const word of hiddenWords) expect(before).toContain(word);

    const { pdf, report } = await run(path, { text: ["alpha"] });
    const text = await pdftotext(pdf);
    for (const word of seenWords) expect(text).toContain(word);
    expect(text).not.toContain("alpha");
    const bytes = await decompressed(pdf);
    for (const word of hiddenWords) expect(bytes).not.toContain(word);
    expect(report.pages).toEqual([
      { page: 1, matches: { "text[0]": 1 }, areas: 0, hiddenText: expect.any(Number) },
    ]);
    expect(report.pages[0]?.hiddenText).toBeGreaterThanOrEqual(hiddenWords.join("").length);

    // sanitize: false leaves it, as the caller asked.
    const kept = await decompressed((await run(path, { text: ["alpha"], sanitize: false })).pdf);
    for (const word of hiddenWords) expect(kept).toContain(word);
  });

  it("drops the outline entries whose titles hold a match, and keeps the others", async () => {
    const outlined = corpusPath("general/samplefiles_pdflatex-outline.pdf");
    const titles = async (pdf: string): Promise<string[]> => {
      const mupdf = await loadMupdf();
      const doc = new mupdf.PDFDocument(await readFile(pdf));
      try {
        const walk = (items: ReturnType<typeof doc.loadOutline>): string[] =>
          (items ?? []).flatMap((item) => [item.title ?? "", ...walk(item.down ?? [])]);
        return walk(doc.loadOutline());
      } finally {
        doc.destroy();
      }
    };
    const before = await titles(outlined);
    expect(before.some((title) => title.includes("Foo"))).toBe(true);
    const { pdf } = await run(outlined, { text: ["Foo"] });
    const after = await titles(pdf);
    expect(after.some((title) => title.includes("Foo"))).toBe(false);
    expect(after).toEqual(before.filter((title) => !title.includes("Foo")));
  });

  it("keeps text set with ' and \" where it was: they are spelled out before MuPDF rewrites the page", async () => {
    // MuPDF 1.28 writes ' back as T* on the page's leading after moves it writes as TD, which change the
    // leading: unspelled, "b3" would move off the page.
    const pdf = await contentPdf(
      "BT /F1 11 Tf 100 700 Td (Secret word) Tj 25 TL (a1) ' (a2) ' 50 50 Td (b1) Tj (b2) ' 1 0 (b3) \" ET",
    );
    const { pdf: out, warnings } = await run(pdf, { text: ["Secret"] });
    expect(warnings).toEqual([]);
    expect(words(await pdftotext(out)).sort()).toEqual(["a1", "a2", "b1", "b2", "b3", "word"]);
    const box: [number, number, number, number] = [95, 80, 40, 16];
    const [original, redacted] = [await maskedRender(pdf, [box]), await maskedRender(out, [box])];
    expect(ssim(original, redacted).mssim).toBeGreaterThanOrEqual(0.995);
  });

  it("draws a page MuPDF would garble as a picture of itself, boxes painted in, and says so", async () => {
    // MuPDF 1.28 drops a T* under a leading of 0 (back to the line's start: a line drawn twice, over itself),
    // so its rewrite would set the second copy after the first.
    const pdf = await contentPdf(
      "BT /F1 11 Tf 100 700 Td (Secret word) Tj ET BT /F1 11 Tf 100 600 Td (over print) Tj T* (over print) Tj ET",
    );
    const { pdf: out, warnings } = await run(pdf, { text: ["Secret"] });
    expect(warnings.join(" ")).toMatch(/^Page 1 of made-\w+\.pdf is now a picture of itself/);
    // The words outside the box are there as invisible text over the picture; the one under it is not.
    const before = words(await pdftotext(pdf));
    expect(before.sort()).toEqual(["Secret", "over", "print", "word"]);
    expect(words(await pdftotext(out)).sort()).toEqual(["over", "print", "word"]);
    // The page as seen, outside the box, is the page as it was: the line over itself.
    const box: [number, number, number, number] = [95, 80, 40, 16];
    const [original, redacted] = [await maskedRender(pdf, [box]), await maskedRender(out, [box])];
    expect(ssim(original, redacted).mssim).toBeGreaterThanOrEqual(0.995);
    // Ink after the line (x 150 to 160, displayed y 183 to 192), where the rewrite would set its copy: none.
    const ink = ({ data, width }: { data: Uint8ClampedArray; width: number }, x0: number) => {
      let dark = 0;
      for (let y = 183; y < 192; y += 1) {
        for (let x = x0; x < x0 + 10; x += 1) {
          const at = (Math.round(y * (150 / 72)) * width + Math.round(x * (150 / 72))) * 4;
          if ((data[at] ?? 255) < 128) dark += 1;
        }
      }
      return dark;
    };
    expect(ink(original, 101)).toBeGreaterThan(5);
    expect(ink(redacted, 101)).toBeGreaterThan(5);
    expect(ink(original, 150)).toBe(0);
    expect(ink(redacted, 150)).toBe(0);
    expect((await runTool("pdfimages", ["-list", out])).stdout).toMatch(/image\s+1700\s+2200/);
  });

  it("writes the label in each box, readable text upright as the page is displayed", async () => {
    const pdf = await textPdf(["Name: Alice Example", "Name: Bob Example"]);
    const rotated = join(dir, "rotated-label.pdf");
    await runTool("qpdf", [pdf, "--rotate=+90", rotated]);
    for (const source of [pdf, rotated]) {
      const { pdf: out } = await run(source, { text: ["Alice Example", "Bob Example"], label: "REDACTED" });
      const text = await pdftotext(out);
      expect(text).not.toMatch(/Alice|Bob/);
      expect(text.match(/REDACTED/g), source).toHaveLength(2);
    }
  });

  it("refuses to look for text on a page that is only an image", async () => {
    const failure = await rejectionOf(run(scan, { text: ["quick"] }), JobFailure);
    expect(failure.code).toBe("conversion_failed");
    expect(failure.message).toContain("without a text layer");
  });

  it("on the generated set (Type 3, CID, ligatures, kerning, split shows, spacing, forms, rotation) leaves no target and keeps the other words", async () => {
    const mupdf = await loadMupdf();
    const normal = (text: string) => text.normalize("NFKC").toLowerCase();
    let others = 0;
    let kept = 0;
    for (const generated of await redactionSet(dir)) {
      const before = normal(await pdftotext(generated.path));
      // Each target is there to find, twice or more; every occurrence is counted.
      const occurrences = generated.targets.map((target) => before.split(target.toLowerCase()).length - 1);
      expect(Math.min(...occurrences), generated.name).toBeGreaterThanOrEqual(2);
      const { pdf, report } = await run(generated.path, { text: generated.targets });
      expect(report.total, generated.name).toBe(occurrences.reduce((sum, count) => sum + count, 0));
      const after = normal(await pdftotext(pdf));
      const doc = new mupdf.PDFDocument(await readFile(pdf));
      const page = doc.loadPage(0);
      const mupdfText = normal(page.toStructuredText("").asText());
      page.destroy();
      doc.destroy();
      const bytes = (await decompressed(pdf)).toLowerCase();
      for (const target of generated.targets) {
        expect(after, `${generated.name}: ${target} in pdftotext`).not.toContain(target.toLowerCase());
        expect(mupdfText, `${generated.name}: ${target} in MuPDF's text`).not.toContain(target.toLowerCase());
      }
      for (const trace of generated.traces) {
        expect(bytes, `${generated.name}: ${trace} in the streams`).not.toContain(trace.toLowerCase());
      }
      // The other words: each one before, found after (as many times).
      const left = new Map<string, number>();
      for (const word of words(after)) left.set(word, (left.get(word) ?? 0) + 1);
      for (const word of words(before)) {
        if (generated.targets.some((target) => word.includes(target.toLowerCase()))) continue;
        others += 1;
        const count = left.get(word) ?? 0;
        if (count > 0) {
          kept += 1;
          left.set(word, count - 1);
        }
      }
    }
    expect(kept / others).toBeGreaterThanOrEqual(0.995);
  });
});
