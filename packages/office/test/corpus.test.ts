import { mkdir, readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OfficeConverter, officeExtensions } from "../src/index.js";
import { corpusDir, pdfPages, pdfText, recall, tempDir, words } from "./helpers.js";
import { sourceText } from "./readers.js";

/** What a corpus file must do; files not listed must convert with recall ≥ defaultFloor. */
type Expectation =
  | { fails: JobFailure["code"]; message: RegExp; why: string }
  | {
      floor?: number;
      encoding?: string;
      readAs?: string;
      pages?: number;
      /** The document holds nothing that prints, so the client is warned that the PDF shows nothing. */
      blank?: true;
      why?: string;
    };

const defaultFloor = 0.95;
const password = /password-protected.*cannot open password-protected documents/;

const expectations: Readonly<Record<string, Expectation>> = {
  "office/tika_testWORD_protected_passtika.docx": {
    fails: "conversion_failed",
    message: password,
    why: "encrypted OOXML",
  },
  "office/poi_bug53475-password-is-pass.docx": {
    fails: "conversion_failed",
    message: password,
    why: "encrypted OOXML",
  },
  "office/tika_testEXCEL_protected_passtika.xlsx": {
    fails: "conversion_failed",
    message: password,
    why: "encrypted OOXML",
  },
  "office/tika_testODTEncrypted.odt": { fails: "conversion_failed", message: password, why: "encrypted ODF" },
  "broken/tika_testWORD_truncated.docx": {
    fails: "invalid_input",
    message: /is damaged or is not a valid Word \(DOCX\) file/,
    why: "incomplete ZIP; LibreOffice's repair gives up",
  },
  "mislabeled/tika_testODTnotaZipFile.odt": {
    fails: "invalid_input",
    message: /is not in the OpenDocument text \(ODT\) format: its content is plain text/,
    why: "24 bytes of text",
  },
  "mislabeled/samplefiles_minimal-document_pdf_renamed.docx": {
    fails: "invalid_input",
    message: /is not in the Word \(DOCX\) format: its content is a PDF document/,
    why: "a PDF",
  },
  "broken/paperless_multi-part-broken.odt": {
    why: "converts: a valid ODT package that LibreOffice reads as is",
  },
  "mislabeled/tika_testEXCEL-formats_xls_renamed.xlsx": {
    readAs: ".xls",
    why: "converts: XLS content, still a spreadsheet, which LibreOffice detects by content",
  },
  "mislabeled/docling_csv-pipe.csv": { why: "converts: the separator is sniffed (|)" },
  "office/tabulator_latin1.csv": { encoding: "iso-8859-1", why: "ISO-8859-1 detected" },
  "office/tika_testTXT_win-1252.txt": { encoding: "windows-1252", why: "Windows-1252 detected" },
  "office/tika_testEXCEL_95.xls": { why: "no cell text in the source (formatting only)" },
  "office/poi_chinese-provinces.xls": {
    floor: 0.85,
    why: "A1 'Provinces in China' is cut at its column edge (B1 is filled), as in Excel",
  },
  "office/pypptx_cht-chart-type.pptx": { pages: 8, why: "8 slides of charts, no slide text" },
  // The footnote text box of these two slides is 0 in high and centred 0.5 in below the top edge: the
  // upper half of its text lies above the slide, where neither PowerPoint nor LibreOffice prints it.
  "office/poi_57893-many-merges.xlsx": {
    blank: true,
    why: "merged, styled cells without a value, border or fill: nothing to print",
  },
  "office/poi_with_japanese.pptx": { floor: 0.65, why: "text above the slide's top edge is not printed" },
  "office/tika_testPPT_various.ppt": { floor: 0.65, why: "text above the slide's top edge is not printed" },
  // Written in Aptos, which has no free metric-compatible font: Noto Sans is wider, and "l1" in a narrow
  // text box wraps into "l" and "1".
  "office/docling_odf_presentation_01.odp": { floor: 0.9, why: "Aptos substituted; a narrow box wraps" },
};

interface Row {
  file: string;
  outcome: string;
  pages: number | undefined;
  sourceWords: number | undefined;
  recall: number | undefined;
  ms: number;
}

const rows: Row[] = [];
const results = new Map<
  string,
  | { ok: true; path: string; name: string; warnings: string[]; ms: number }
  | { ok: false; error: unknown; ms: number }
>();
let converter: OfficeConverter;
let outRoot: string;

const supported: readonly string[] = Object.values(officeExtensions).flat();

async function officeFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of ["office", "broken", "mislabeled"]) {
    for (const name of await readdir(join(corpusDir, dir))) {
      if (supported.includes(extname(name).toLowerCase())) files.push(`${dir}/${name}`);
    }
  }
  return files.sort();
}

const files = await officeFiles();

beforeAll(async () => {
  outRoot = await tempDir();
  converter = new OfficeConverter({
    instances: 2,
    maxConversionsPerInstance: 100,
    // A hang guard, not a speed test: the 916-page spreadsheet takes about 20 s alone and took over 90 s
    // once in a whole run, beside two other test files and their LibreOffice instances on two cores.
    conversionTimeoutMs: 300_000,
    workDir: join(outRoot, "work"),
  });
  // Two workers, as many as instances, so each time below is one conversion and not a wait in the queue;
  // largest first, so the 900-page spreadsheet does not end up alone at the end.
  const sizes = new Map(
    await Promise.all(files.map(async (file) => [file, (await stat(join(corpusDir, file))).size] as const)),
  );
  const queue = [...files].sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0));
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const outDir = join(outRoot, `out-${files.indexOf(file)}`);
      await mkdir(outDir);
      const started = Date.now();
      try {
        const output = await converter.convert(
          { path: join(corpusDir, file), name: file.split("/").pop() ?? file },
          outDir,
        );
        results.set(file, { ok: true, ...output, ms: Date.now() - started });
      } catch (error) {
        results.set(file, { ok: false, error, ms: Date.now() - started });
      }
    }
  };
  await Promise.all([worker(), worker()]);
}, 600_000);

afterAll(async () => {
  await converter.close();
  const table = rows
    .sort((a, b) => a.file.localeCompare(b.file))
    .map((row) =>
      [
        row.file.padEnd(58),
        row.outcome.padEnd(18),
        String(row.pages ?? "").padStart(5),
        String(row.sourceWords ?? "").padStart(6),
        (row.recall === undefined ? "n/a" : row.recall.toFixed(3)).padStart(6),
        `${row.ms} ms`.padStart(9),
      ].join(" "),
    );
  console.log(
    ["file".padEnd(58), "outcome".padEnd(18), "pages", " words", "recall", "     time"].join(" "),
    `\n${table.join("\n")}`,
  );
});

describe("every Office file of the corpus", () => {
  it.each(files)("%s", async (file) => {
    const expectation: Expectation = expectations[file] ?? {};
    const result = results.get(file);
    if (result === undefined) throw new Error(`no result for ${file}`);
    if ("fails" in expectation) {
      rows.push({
        file,
        outcome: result.ok ? "converted (!)" : `fails: ${expectation.fails}`,
        pages: undefined,
        sourceWords: undefined,
        recall: undefined,
        ms: result.ms,
      });
      expect(result.ok, `${file} should fail (${expectation.why})`).toBe(false);
      if (result.ok) return;
      expect(result.error).toBeInstanceOf(JobFailure);
      const failure = result.error as JobFailure;
      expect(failure.code).toBe(expectation.fails);
      expect(failure.message).toMatch(expectation.message);
      // Failures come well before the timeout: no password prompt or repair dialog is ever waited for.
      expect(result.ms).toBeLessThan(30_000);
      return;
    }
    if (!result.ok) throw result.error;
    expect(result.name).toBe(`${(file.split("/").pop() ?? file).replace(/\.[^.]+$/, "")}.pdf`);
    const pages = await pdfPages(result.path);
    expect(pages).toBeGreaterThan(0);
    // Only a document with nothing to print is reported as converted to nothing.
    if (expectation.blank) expect(result.warnings, file).toEqual([expect.stringMatching(/nothing visible/)]);
    else expect(result.warnings, file).toEqual([]);
    if (expectation.pages !== undefined) expect(pages).toBe(expectation.pages);
    const source = words(
      await sourceText(join(corpusDir, file), {
        ...(expectation.encoding === undefined ? {} : { encoding: expectation.encoding }),
        ...(expectation.readAs === undefined ? {} : { readAs: expectation.readAs }),
      }),
    );
    const found = recall(source, words(await pdfText(result.path)));
    rows.push({ file, outcome: "converted", pages, sourceWords: source.size, recall: found, ms: result.ms });
    if (found !== undefined)
      expect(found, `${file} word recall`).toBeGreaterThanOrEqual(expectation.floor ?? defaultFloor);
  });
});

describe("LibreOffice-rendered reference PDFs", () => {
  // The references were printed by LibreOffice on macOS, with Apple's fonts: where a document asks for a
  // font neither machine has ("Open Sans", Aptos), each substitutes its own, so lines can wrap differently.
  const references: [file: string, pageDifference: number, floor: number][] = [
    ["office/docling_text_document_01.odt", 1, 1],
    ["office/docling_odf_presentation_01.odp", 0, 0.9],
    ["office/docling_odf_table_with_title_01.ods", 0, 1],
  ];
  it.each(references)("%s matches its .reference.pdf", async (file, pageDifference, floor) => {
    const result = results.get(file);
    if (!result?.ok) throw new Error(`${file} did not convert`);
    const reference = join(corpusDir, `${file}.reference.pdf`);
    const pages = await pdfPages(result.path);
    const referencePages = await pdfPages(reference);
    expect(Math.abs(pages - referencePages)).toBeLessThanOrEqual(pageDifference);
    const found = recall(words(await pdfText(reference)), words(await pdfText(result.path)));
    rows.push({
      file: `${file}.reference.pdf`,
      outcome: `vs reference (${referencePages} p)`,
      pages,
      sourceWords: undefined,
      recall: found,
      ms: 0,
    });
    expect(found).toBeGreaterThanOrEqual(floor);
  });
});
