import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { contentBombPdf, garbageImagePdf, readManifest } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { ocr } from "../src/index.js";
import { corpus, corpusDir, execFileAsync, workDir } from "./helpers.js";

/**
 * The OCR sweep of corpus/encrypted, corpus/broken (every file of at most 20 pages) and corpus/mislabeled, with
 * the spec's defaults; the API's corpus sweep leaves these inputs to this file. Every file ends `done` with an
 * output qpdf accepts, or failed with a code that says what is wrong with the input and a real message; never
 * `timeout`, never another code.
 */
const defaults = { languages: ["eng"], deskew: true, force: false };
const allowedCodes = ["invalid_input", "password_required", "conversion_failed"];

function filesIn(category: string): string[] {
  return readdirSync(join(corpusDir, category))
    .sort()
    .map((file) => `${category}/${file}`);
}

/** The Microsoft IRM wrapper is not encrypted: its content is an attachment no password opens. */
const protectedWrapper = "encrypted/tika_testMicrosoftIRMServices.pdf";

/**
 * Small = at most 20 pages by the MANIFEST, or no page count at all (not a PDF, or unreadable). The page-count
 * bomb claims 9999999999 pages and has one; it is exactly the kind of file this sweep is for.
 */
const maxPages = 20;
const pageCountBomb = "broken/pdfjs_poppler-67295-0.pdf";

/** Outcomes the shared preflight (openSource) decides, asserted beyond "sound". */
const expected: Record<string, { code?: string; pattern: RegExp }> = {
  // Rebuilt by MuPDF (qpdf cannot read it), then OCR'd: the old preflight refused it.
  "broken/qpdf_issue-202.pdf": { pattern: /is damaged; MuPDF reconstructed it/ },
  // The rebuilt copy has the one real page.
  [pageCountBomb]: { pattern: /claims 9999999999 pages/ },
  "broken/pdfjs_Pages-tree-refs.pdf": { code: "invalid_input", pattern: /Run the repair operation/ },
  "broken/ocrmypdf_invalid.pdf": { code: "invalid_input", pattern: /damaged beyond repair/ },
  "mislabeled/pdfplumber_empty.pdf": { code: "invalid_input", pattern: /is not a PDF: the file is empty/ },
  "mislabeled/ocrmypdf_typewriter_png_renamed.pdf": { code: "invalid_input", pattern: /PNG image/ },
};

function smallFiles(category: string): string[] {
  const pages = new Map(readManifest().map((entry) => [entry.path, entry.pages]));
  return filesIn(category).filter((file) => {
    const count = pages.get(file);
    return file === pageCountBomb || count === undefined || count <= maxPages;
  });
}

const encrypted = filesIn("encrypted").filter((file) => file.endsWith(".pdf"));
/** Every small broken file (the 12-, 16- and 18-page documents too): the API's sweep no longer repeats them. */
const broken = smallFiles("broken");
const mislabeled = smallFiles("mislabeled");

interface Outcome {
  failure?: JobFailure;
  output?: string;
  warnings: string[];
  seconds: number;
}

async function ocrOf(file: string, dir: string): Promise<Outcome> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const result = await ocr(corpus(file), defaults, { workDir: dir });
    expect(result.outputs, file).toHaveLength(1);
    const output = result.outputs[0]?.path;
    return { ...(output === undefined ? {} : { output }), warnings: result.warnings, seconds: seconds() };
  } catch (error) {
    if (!(error instanceof JobFailure)) throw error;
    return { failure: error, warnings: [], seconds: seconds() };
  }
}

/** Done with an output that passes `qpdf --check` (exit 0, or 3 = warnings), or failed with an input code. */
async function expectSound(file: string, outcome: Outcome): Promise<void> {
  console.log(
    `${file}: ${outcome.failure ? `failed ${outcome.failure.code} (${outcome.failure.message})` : `done${outcome.warnings.length > 0 ? ` (${outcome.warnings.join(" ")})` : ""}`} in ${outcome.seconds.toFixed(1)} s`,
  );
  if (outcome.failure !== undefined) {
    expect(allowedCodes, `${file}: ${outcome.failure.message}`).toContain(outcome.failure.code);
    expect(outcome.failure.message.length, file).toBeGreaterThan(20);
    return;
  }
  expect(outcome.output, file).toBeDefined();
  const check = await execFileAsync("qpdf", ["--check", outcome.output ?? ""]).then(
    () => 0,
    (error: { code?: number }) => error.code,
  );
  expect([0, 3], `${file}: qpdf --check exit ${check}`).toContain(check);
}

function expectDecided(file: string, outcome: Outcome): void {
  const wanted = expected[file];
  if (wanted === undefined) return;
  expect(outcome.failure?.code, `${file}: ${outcome.failure?.message}`).toBe(wanted.code);
  const said = outcome.failure?.message ?? outcome.warnings.join(" ");
  expect(said, file).toMatch(wanted.pattern);
}

describe("corpus/encrypted through ocr()", () => {
  it.each(encrypted)("%s is refused before OCR", async (file) => {
    const outcome = await ocrOf(file, await workDir());
    await expectSound(file, outcome);
    if (file === protectedWrapper) {
      expect(outcome.failure?.code, file).toBe("conversion_failed");
      expect(outcome.failure?.message).toMatch(/protected wrapper/);
    } else {
      expect(outcome.failure?.code, `${file}: ${outcome.failure?.message}`).toBe("password_required");
      expect(outcome.failure?.message).toMatch(/unlock/);
    }
    expect(outcome.seconds, file).toBeLessThan(10);
  });

  it("has the files this sweep is about", () => {
    expect(encrypted.length).toBeGreaterThanOrEqual(25);
    // Encrypted and damaged: qpdf and pikepdf drop the /Encrypt entry while reconstructing it.
    expect(encrypted).toContain("encrypted/pdfjs_issue15893_reduced.pdf");
    expect(encrypted).toContain(protectedWrapper);
  });
});

describe("small corpus/broken files through ocr()", () => {
  it.each(broken)("%s ends done with a sound PDF, or failed for its input", async (file) => {
    const outcome = await ocrOf(file, await workDir());
    await expectSound(file, outcome);
    expectDecided(file, outcome);
  });

  it("covers the files whose outcome is asserted", () => {
    for (const file of Object.keys(expected)) expect([...broken, ...mislabeled], file).toContain(file);
  });
});

describe("small corpus/mislabeled files through ocr()", () => {
  it.each(mislabeled)("%s ends done with a sound PDF, or failed for its input", async (file) => {
    const outcome = await ocrOf(file, await workDir());
    await expectSound(file, outcome);
    expectDecided(file, outcome);
  });
});

describe("generated hostile files through ocr()", () => {
  it.each(["JPXDecode"])(
    "an image of garbage %s data → invalid_input saying so, no exception class name",
    async (filter) => {
      const dir = await workDir();
      const path = join(dir, "garbage.pdf");
      writeFileSync(path, garbageImagePdf(filter));
      const failure = await ocr({ path, name: "garbage.pdf" }, defaults, { workDir: dir }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(JobFailure);
      expect(failure).toMatchObject({ code: "invalid_input" });
      expect((failure as JobFailure).message).toMatch(
        /garbage\.pdf has an image whose data cannot be decoded/,
      );
      expect((failure as JobFailure).message).not.toMatch(/[A-Z]\w+(Error|Exception)\b/);
    },
  );

  it("a decompression bomb → invalid_input naming the limit, not 'damaged'", async () => {
    const dir = await workDir();
    const path = join(dir, "bomb.pdf");
    writeFileSync(path, contentBombPdf(2 * 1024 ** 3));
    const failure = await ocr({ path, name: "bomb.pdf" }, defaults, { workDir: dir }).catch((error) => error);
    expect(failure).toMatchObject({ code: "invalid_input" });
    expect(failure.message).toMatch(/inflates to more than 512 MB, a decompression bomb/);
  });
});
