import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath, rejectionOf, runTool } from "@octavo/testing";
import { ssim } from "ssim.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedactionReport, type RedactOptions, redact } from "../src/redact.js";

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

/** The redacted PDF, the one output, and the report the job shows (never a file of its own). */
async function run(pdf: string, options: RedactOptions): Promise<{ pdf: string; report: RedactionReport }> {
  const result = await redact({ path: pdf, name: pdf.split("/").pop() ?? "in.pdf" }, options, {
    workDir: await mkdtemp(join(dir, "job-")),
  });
  expect(result.outputs.map((output) => output.contentType)).toEqual(["application/pdf"]);
  const [out] = result.outputs;
  if (out === undefined) throw new Error("missing output");
  return { pdf: out.path, report: result.report };
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
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font("Helvetica"), "Latin");
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put("F1", font);
    resources.put("Font", fonts);
    const pdfString = (text: string) => text.replace(/[()\\]/g, "\\$&");
    const content = lines
      .map((line, index) => `BT /F1 11 Tf 72 ${740 - index * 18} Td (${pdfString(line)}) Tj ET`)
      .join("\n");
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, content));
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
    const mupdf = await loadMupdf();
    const doc = new mupdf.PDFDocument();
    const path = join(dir, "xobject.pdf");
    try {
      const fonts = doc.newDictionary();
      fonts.put("F1", doc.addSimpleFont(new mupdf.Font("Helvetica"), "Latin"));
      const formResources = doc.newDictionary();
      formResources.put("Font", fonts);
      const formDict = doc.newDictionary();
      formDict.put("Type", doc.newName("XObject"));
      formDict.put("Subtype", doc.newName("Form"));
      const bbox = doc.newArray();
      for (const value of [0, 0, 400, 100]) bbox.push(doc.newReal(value));
      formDict.put("BBox", bbox);
      formDict.put("Resources", formResources);
      const form = doc.addStream("BT /F1 12 Tf 10 50 Td (Secret plan B) Tj ET", formDict);
      const resources = doc.newDictionary();
      resources.put("Font", fonts);
      const xobjects = doc.newDictionary();
      xobjects.put("Fx", form);
      resources.put("XObject", xobjects);
      const content = [
        "BT /F1 12 Tf 72 700 Td [(Con)-20(fid)10(ential) -250 (memo)] TJ ET",
        "BT /F1 12 Tf 72 680 Td (Keep) Tj ( this) Tj ( line) Tj ET",
        "q 1 0 0 1 62 500 cm /Fx Do Q",
      ].join("\n");
      doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, content));
      await writeFile(path, doc.saveToBuffer("").asUint8Array());
    } finally {
      doc.destroy();
    }
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
});
