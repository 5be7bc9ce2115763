import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ocr } from "../src/index.js";
import {
  corpus,
  corpusDir,
  execFileAsync,
  failsWith,
  imageFingerprints,
  pdfText,
  rawText,
  recall,
  skewDegrees,
  withFakeTextLayer,
  words,
  workDir,
} from "./helpers.js";

const defaults = { languages: ["eng"], deskew: true, force: false };

describe("text layer", () => {
  it("makes an image-only scan searchable and names the output like the input", async () => {
    const input = corpus("scanned/tesseract_phototest.pdf");
    expect((await pdfText(input.path)).trim()).toBe("");
    const result = await ocr({ ...input, name: "Photo Test.PDF" }, defaults, { workDir: await workDir() });
    expect(result.engine).toBe("ocrmypdf");
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]?.name).toBe("Photo Test.PDF");
    expect(result.outputs[0]?.contentType).toBe("application/pdf");
    const text = await pdfText(result.outputs[0]?.path ?? "");
    expect(text).toMatch(/quick brown dog/);
  });
});

describe("force", () => {
  const bogus = "octavozz previouslayer";

  it("false keeps the text layer of pages that have one and OCRs nothing there", async () => {
    const dir = await workDir();
    const sandwich = corpus("general/pikepdf_sandwich.pdf");
    const before = await pdfText(sandwich.path);
    expect(before.trim()).not.toBe("");
    const result = await ocr(sandwich, { ...defaults, force: false }, { workDir: dir });
    const output = result.outputs[0]?.path ?? "";
    expect(await pdfText(output)).toBe(before);
    expect(await imageFingerprints(output)).toEqual(await imageFingerprints(sandwich.path));
    expect(result.warnings.join(" ")).toMatch(/already has text/);

    const faked = await withFakeTextLayer(corpus("scanned/tesseract_phototest.pdf").path, bogus, dir);
    const kept = await ocr(
      { path: faked, name: "faked.pdf" },
      { ...defaults, force: false },
      { workDir: dir },
    );
    const keptText = await pdfText(kept.outputs[0]?.path ?? "");
    expect(keptText).toContain(bogus);
    expect(keptText).not.toMatch(/quick brown dog/);
  });

  it("true replaces an existing text layer, with deskew off (redo) and on (force)", async () => {
    const dir = await workDir();
    const phototest = corpus("scanned/tesseract_phototest.pdf");
    const faked = await withFakeTextLayer(phototest.path, bogus, dir);
    expect(await pdfText(faked)).toContain(bogus);
    for (const deskew of [false, true]) {
      const result = await ocr(
        { path: faked, name: "faked.pdf" },
        { ...defaults, deskew, force: true },
        { workDir: dir },
      );
      const output = result.outputs[0]?.path ?? "";
      const text = await pdfText(output);
      expect(text, `deskew ${deskew}`).not.toContain("octavozz");
      expect(text, `deskew ${deskew}`).toMatch(/quick brown dog/);
      // Redo (deskew off) replaces only the text: the scan stays byte for byte.
      if (!deskew) expect(await imageFingerprints(output)).toEqual(await imageFingerprints(phototest.path));
    }
    // A file OCR'd before by this very operation (its layer sits in a Form XObject, which OCRmyPDF 14's
    // --redo-ocr alone leaves in place): the old layer is replaced, not doubled.
    const once = await ocr(phototest, { ...defaults, deskew: false }, { workDir: dir });
    const twice = await ocr(
      { path: once.outputs[0]?.path ?? "", name: "once.pdf" },
      { ...defaults, deskew: false, force: true },
      { workDir: dir },
    );
    const onceWords = words(await rawText(once.outputs[0]?.path ?? ""));
    const twiceWords = words(await rawText(twice.outputs[0]?.path ?? ""));
    expect(onceWords.length).toBeGreaterThan(50);
    expect(twiceWords).toEqual(onceWords);
    expect(await imageFingerprints(twice.outputs[0]?.path ?? "")).toEqual(
      await imageFingerprints(phototest.path),
    );

    const sandwich = corpus("general/pikepdf_sandwich.pdf");
    const redone = await ocr(sandwich, { ...defaults, deskew: false, force: true }, { workDir: dir });
    const redoneText = await pdfText(redone.outputs[0]?.path ?? "");
    expect(words(redoneText).length).toBeGreaterThan(10);
    expect(redone.warnings.join(" ")).not.toMatch(/already/);
  });
});

describe("deskew", () => {
  it("straightens scanned/ocrmypdf_skew.pdf and recognises more of it", async () => {
    const dir = await workDir();
    const skewed = corpus("scanned/ocrmypdf_skew.pdf");
    const truth = await readFile(join(corpusDir, "scanned/ocrmypdf_linn.txt"), "utf8");
    const before = await skewDegrees(skewed.path);
    const straight = await ocr(skewed, { ...defaults, deskew: true }, { workDir: dir });
    const crooked = await ocr(skewed, { ...defaults, deskew: false }, { workDir: dir });
    const after = await skewDegrees(straight.outputs[0]?.path ?? "");
    const untouched = await skewDegrees(crooked.outputs[0]?.path ?? "");
    const recallStraight = recall(truth, await pdfText(straight.outputs[0]?.path ?? ""));
    const recallCrooked = recall(truth, await pdfText(crooked.outputs[0]?.path ?? ""));
    console.log(
      `skew: input ${before}°, deskew on ${after}°, off ${untouched}°; recall on ${recallStraight.toFixed(3)}, off ${recallCrooked.toFixed(3)}`,
    );
    expect(Math.abs(before)).toBeGreaterThanOrEqual(1);
    expect(Math.abs(after)).toBeLessThanOrEqual(0.3);
    expect(untouched).toBe(before);
    expect(recallStraight).toBeGreaterThan(recallCrooked);
  });

  it("turns pages scanned sideways upright (scanned/ocrmypdf_cardinal.pdf, text at 0/90/180/270°)", async () => {
    const result = await ocr(corpus("scanned/ocrmypdf_cardinal.pdf"), defaults, { workDir: await workDir() });
    expect(result.warnings.join(" ")).toMatch(/turned upright/);
    const pages = (await pdfText(result.outputs[0]?.path ?? ""))
      .split("\f")
      .filter((page) => page.trim() !== "");
    expect(pages).toHaveLength(4);
    // Same brochure on each page: once upright, each page reads like the first.
    const first = pages[0] ?? "";
    for (const page of pages) expect(recall(first, page)).toBeGreaterThan(0.8);
  });
});

describe("page images are not degraded", () => {
  const files = [
    "scanned/ocrmypdf_c02-22.pdf", // JPEG
    "scanned/ocrmypdf_ccitt.pdf", // CCITT G4
    "scanned/ocrmypdf_jbig2.pdf", // JBIG2
    "scanned/extractous_deu-ocr.pdf", // Flate RGB with soft masks, three images on a page
    "scanned/ocrmypdf_francais.pdf", // JPEG grey
  ];
  it("keeps every image stream identical when deskew is off", async () => {
    const dir = await workDir();
    for (const file of files) {
      const input = corpus(file);
      const languages = file.includes("deu") ? ["deu"] : file.includes("francais") ? ["fra"] : ["eng"];
      const result = await ocr(input, { languages, deskew: false, force: false }, { workDir: dir });
      const output = result.outputs[0]?.path ?? "";
      expect(await imageFingerprints(output), file).toEqual(await imageFingerprints(input.path));
      expect(words(await pdfText(output)).length, file).toBeGreaterThan(5);
    }
  });
});

describe("page images are not recompressed lossily when deskew redraws them", () => {
  it("stores a straightened JPEG page losslessly instead of re-encoding it as JPEG", async () => {
    const dir = await workDir();
    for (const [file, languages] of [
      ["scanned/ocrmypdf_c02-22.pdf", ["eng"]],
      ["scanned/ocrmypdf_skew.pdf", ["eng"]],
    ] as const) {
      const input = corpus(file);
      const result = await ocr(
        input,
        { languages: [...languages], deskew: true, force: false },
        { workDir: dir },
      );
      const output = result.outputs[0]?.path ?? "";
      const before = new Set(imageHashes(await imageFingerprints(input.path)));
      const { stdout } = await execFileAsync("pdfimages", ["-list", output]);
      const rows = stdout
        .split("\n")
        .slice(2)
        .filter((line) => line.trim() !== "");
      const hashes = imageHashes(await imageFingerprints(output));
      expect(rows.length, file).toBeGreaterThan(0);
      rows.forEach((row, index) => {
        const encoding = row.trim().split(/\s+/)[8];
        // Either the scan's own image, unchanged, or a new image in a lossless encoding.
        if (!before.has(hashes[index] ?? ""))
          expect(["jpeg", "jpx"], `${file}: ${row}`).not.toContain(encoding);
      });
    }
  });
});

/** The SHA-256 part of imageFingerprints(), in image order. */
function imageHashes(fingerprints: string[]): string[] {
  return fingerprints
    .filter((line) => /^img-\d+\.\w+ [0-9a-f]{64}$/.test(line))
    .map((line) => line.split(" ")[1] ?? "");
}

describe("progress", () => {
  it("rises page by page while OCR runs, then ends at 1", async () => {
    const seen: { fraction: number; at: number }[] = [];
    const started = performance.now();
    await ocr(corpus("scanned/paperless_multi-page-images.pdf"), defaults, {
      workDir: await workDir(),
      onProgress: (fraction) => seen.push({ fraction, at: performance.now() - started }),
    });
    const fractions = seen.map((entry) => entry.fraction);
    console.log(
      `progress: ${seen.map((entry) => `${entry.fraction.toFixed(2)}@${Math.round(entry.at)}ms`).join(" ")}`,
    );
    for (let index = 1; index < fractions.length; index += 1) {
      expect(fractions[index]).toBeGreaterThan(fractions[index - 1] ?? 0);
    }
    expect(fractions.at(-1)).toBe(1);
    // Three pages: at least three distinct steps inside the OCR phase, reported before the end.
    const during = seen.filter((entry) => entry.fraction > 0.05 && entry.fraction < 1);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(new Set(during.map((entry) => Math.round(entry.at / 100))).size).toBeGreaterThanOrEqual(2);
  });
});

describe("languages", () => {
  it("OCRs with three languages at once (eng+deu+fra on a multilingual page)", async () => {
    const result = await ocr(
      corpus("scanned/tesseract_eurotext.pdf"),
      { languages: ["eng", "deu", "fra"], deskew: false, force: false },
      { workDir: await workDir() },
    );
    const text = words(await pdfText(result.outputs[0]?.path ?? ""));
    // German and French words with their diacritics: only the deu and fra models spell these.
    for (const word of ["über", "schnelle", "faulen", "renard", "par", "paresseux"])
      expect(text).toContain(word);
  });

  it("refuses option values outside the spec", async () => {
    const dir = await workDir();
    const input = corpus("scanned/tesseract_phototest.pdf");
    await failsWith(ocr(input, { ...defaults, languages: [] }, { workDir: dir }), "invalid_input");
    await failsWith(
      ocr(input, { ...defaults, languages: ["eng", "deu", "fra", "spa"] }, { workDir: dir }),
      "invalid_input",
    );
    const unknown = await failsWith(
      ocr(input, { ...defaults, languages: ["klingon"] }, { workDir: dir }),
      "invalid_input",
    );
    expect(unknown.message).toMatch(/not supported/);
  });
});

describe("inputs", () => {
  it("refuses encrypted PDFs with password_required, before OCR", async () => {
    const dir = await workDir();
    for (const file of [
      "encrypted/paperless_password-is-test.pdf",
      "encrypted/pypdf_r6-owner-password.pdf",
    ]) {
      const failure = await failsWith(ocr(corpus(file), defaults, { workDir: dir }), "password_required");
      expect(failure.message).toMatch(/unlock/);
    }
  });

  it("refuses what is not a PDF with invalid_input", async () => {
    const dir = await workDir();
    const empty = join(dir, "empty.pdf");
    await writeFile(empty, "");
    const text = join(dir, "notes.pdf");
    await writeFile(text, "just some words, not a PDF\n".repeat(20));
    for (const input of [
      corpus("mislabeled/pydocx_test_docx_renamed.pdf"),
      corpus("mislabeled/ocrmypdf_typewriter_png_renamed.pdf"),
      { path: empty, name: "empty.pdf" },
      { path: text, name: "notes.pdf" },
    ]) {
      const failure = await failsWith(ocr(input, defaults, { workDir: dir }), "invalid_input");
      expect(failure.message).toMatch(/not a PDF|cannot be read/);
    }
  });

  it("refuses a 35000² px page quickly with a clear message instead of exhausting memory", async () => {
    const started = performance.now();
    const failure = await failsWith(
      ocr(corpus("scanned/ocrmypdf_hugemono.pdf"), defaults, { workDir: await workDir() }),
      "invalid_input",
    );
    expect(failure.message).toMatch(/megapixels/);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it("stops with timeout when the job is aborted, and leaves no OCR process behind", async () => {
    const dir = await workDir();
    // Every file of the job (input copy, scratch, output) is under dir, so its processes name dir.
    const unique = join(dir, "big.pdf");
    await copyFile(corpus("scanned/ocrmypdf_multipage.pdf").path, unique);
    const started = performance.now();
    const failure = await failsWith(
      ocr({ path: unique, name: "big.pdf" }, defaults, { workDir: dir, signal: AbortSignal.timeout(2500) }),
      "timeout",
    );
    expect(failure.message).toMatch(/too long/);
    expect(performance.now() - started).toBeLessThan(10_000);
    const { stdout } = await execFileAsync("ps", ["-eo", "pid,args"]);
    expect(stdout.split("\n").filter((line) => line.includes(dir) && !line.includes("ps -eo"))).toEqual([]);
  });
});
