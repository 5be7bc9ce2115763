// PDF to Markdown on real files: every born-digital PDF of corpus/general and corpus/tables converted to
// JSON, each output checked against the MarkdownDocument schema of the OpenAPI document and its text
// against pdftotext's words (no page or block silently dropped); then what the corpus shows of reading
// order: right-to-left text and tables, code, captions and lists. The quality figures are bench/markdown's.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { MarkdownDocument } from "@octavo/contracts/markdown-document";
import { ChildPool } from "@octavo/testing";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toMarkdown } from "../src/markdown/render.js";
import { cleanup, corpusPath, wordRecall, workDir } from "./helpers.js";
import { type BornDigital, bornDigitalCorpus } from "./office-text.js";

/** Two engine processes: the machine has two cores. */
const engines = new ChildPool<Record<string, unknown>, ConversionAnswer>(
  fileURLToPath(new URL("./engine-child.mjs", import.meta.url)),
  { size: 2, callsPerChild: 50 },
);

interface ConversionAnswer {
  result?: { outputs: { path: string; name: string }[]; warnings: string[] };
  failure?: { code: string; message: string };
  seconds: number;
}

type Document = typeof MarkdownDocument.static;

const validate = new Ajv({ strict: false, allErrors: true }).compile(MarkdownDocument);

/** Converts one corpus file to JSON (with options) in an engine process; the parsed document. */
async function convert(file: string, options: Record<string, unknown> = {}): Promise<Document> {
  const dir = await workDir();
  try {
    const answer = await engines.call({
      kind: "markdown",
      path: corpusPath(file),
      name: basename(file),
      workDir: dir,
      options: { format: "json", ...options },
    });
    if (answer.failure) throw new Error(`${file}: ${answer.failure.code}: ${answer.failure.message}`);
    const document: unknown = JSON.parse(await readFile(answer.result?.outputs[0]?.path ?? "", "utf8"));
    expect(validate(document), `${file}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    return document as Document;
  } finally {
    await cleanup(dir);
  }
}

/** Every block's text, list items and table cells included. */
function allText(document: Document): string {
  return document.elements.map((element) => element.text).join("\n");
}

/** The recall PDF to Word is held to on the same files (corpus.test.ts). */
const threshold = 0.98;

const corpus = bornDigitalCorpus();

afterAll(() => engines.close());

describe("PDF to Markdown on the born-digital corpus", () => {
  const outcomes = new Map<
    string,
    { recall: number; missing: string[]; sourceWords: number; pages: number; document: Document }
  >();

  beforeAll(async () => {
    await Promise.all(
      corpus.files.map(async (input: BornDigital) => {
        // Running heads kept: they are the PDF's words too.
        const document = await convert(input.file, { headersFooters: "keep" });
        outcomes.set(input.file, {
          ...wordRecall(input.reference, allText(document)),
          pages: input.pages,
          document,
        });
      }),
    );
    const rows = [...outcomes].map(
      ([file, outcome]) => `${file.padEnd(80)} ${(outcome.recall * 100).toFixed(2).padStart(6)} %`,
    );
    console.log(rows.sort().join("\n"));
  }, 20 * 60_000);

  it.each(corpus.files.map((input) => input.file))("%s: every page converted, a valid document", (file) => {
    const outcome = outcomes.get(file);
    expect(outcome?.document.pages).toHaveLength(outcome?.pages ?? -1);
    expect(outcome?.document.pageCount).toBe(outcome?.pages);
  });

  // The bar PDF to Word meets on these files, measured the same way (corpus.test.ts says why it is pooled):
  // the files below it lose what Word loses too, in the layout both read (words a PDF sets without spaces,
  // a margin stamp outside the page's box, pdftotext's own reading of right-to-left ligatures).
  it("keeps at least 98 % of the words over the set and in the median file, and half in every file", () => {
    const all = [...outcomes.values()];
    const words = all.reduce((sum, outcome) => sum + outcome.sourceWords, 0);
    const found = all.reduce((sum, outcome) => sum + outcome.recall * outcome.sourceWords, 0);
    const below = [...outcomes].filter(([, outcome]) => outcome.recall < threshold);
    console.log(
      `pooled recall ${(found / words).toFixed(4)}; below ${threshold}:\n${below.map(([file, o]) => `${file}: ${o.missing.slice(0, 12).join(" ")}`).join("\n")}`,
    );
    expect(found / words).toBeGreaterThanOrEqual(threshold);
    const recalls = all.map((outcome) => outcome.recall).sort((a, b) => a - b);
    expect(recalls[Math.floor(recalls.length / 2)]).toBeGreaterThanOrEqual(threshold);
    for (const [file, outcome] of outcomes) expect(outcome.recall, file).toBeGreaterThanOrEqual(0.5);
  });
});

describe("headings and running heads", () => {
  const headings = (document: Document) =>
    document.elements.filter((element) => element.type === "heading").map((element) => element.text);

  // The outline is left out (outline: false, as bench/markdown/headings.mjs does): the font hierarchy alone.
  it("drops an appendix's own running head, and joins a section number set in a column of its own to its title", async () => {
    const document = await convert("general/govdocs_error_set_1_316267.pdf", { outline: false });
    // Pages 83-93 carry "Handbook for Coding Guidelines V6.0, March 13, 2006 Attachment A", pages 94-104
    // the same with B, C, E or F: each on too few of the 104 pages to count for the whole document.
    const appendixHeads = document.elements.filter((element) => /Attachment [A-F]$/.test(element.text));
    expect(appendixHeads.map((element) => element.page)).toEqual([]);
    const found = headings(document);
    // "VI." sits left of its bold title and is read before it; "D." is regular, "Deaths" bold, and the
    // numbered items of the section before and after it are another list.
    expect(found).toEqual(expect.arrayContaining(["VI. INPATIENT CODING GUIDELINES", "D. Deaths"]));
    expect(found.filter((text) => /^[IVXLC]+\.?\s*$/.test(text))).toEqual([]);
  });

  it("reads a page full of small-print tables against the document's body size, and a contents page as entries", async () => {
    const document = await convert("general/govdocs_error_set_2_064034.pdf");
    const found = headings(document);
    expect(found).toContain("1.4.6 Taxas de Resposta");
    // Body text beside a table in 8 pt is the page's largest text, but the document's body size.
    expect(found.filter((text) => /^(A tabela|Um total|elegíveis|foram)\b/.test(text))).toEqual([]);
    // The contents' chapter lines are entries; its title is set larger and heads it.
    expect(found).toContain("CONTEÚDOS");
    expect(found.filter((text) => /^CAP[ÍÌ]TULO \d$/.test(text))).toEqual([]);
    // The questionnaire's own footer, on its pages only, is a running foot: "Pesquisa Indicadora de
    // Malária em Angola: … Componente Nuclear 2— Questionário Individual para Mulheres" on pages 96-113
    // (page 95 words it otherwise, "Inquérito dos Indicadores …", and keeps it).
    const footers = document.elements.filter((element) => element.text.startsWith("Pesquisa Indicadora"));
    expect(footers.map((element) => element.page)).toEqual([]);
  });
});

describe("reading order", () => {
  it("puts right-to-left text in logical order, Latin words and numbers whole where a reader meets them", async () => {
    const document = await convert("general/docling_right_to_left_01.pdf");
    const [title] = document.elements;
    expect(title).toMatchObject({ type: "heading", level: 1 });
    // pdftotext's reading of the title: the Arabic first, "R و Python" at its (left) end.
    expect(title?.text).toBe("تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R و Python");
  });

  it("numbers a right-to-left table's columns from the right", async () => {
    const document = await convert("tables/camelot_arabic.pdf");
    const table = document.elements.find((element) => element.type === "table");
    const firstRow = table?.cells?.filter((cell) => cell.row === 1).sort((a, b) => a.column - b.column);
    // The right-hand column of the page holds the questions; a reader of Arabic starts there.
    expect(firstRow?.map((cell) => cell.text)).toEqual(["من اين انت؟", "انا من ولاية كارولينا الشمال"]);
  });

  it("fences code listings, keeps captions beside their figures and lists as lists", async () => {
    const document = await convert("general/pdfjs_tracemonkey_with_annotations.pdf", { pages: "1-4" });
    const markdown = toMarkdown(document.elements, { images: "placeholder", pageBreaks: undefined });
    expect(markdown).toMatch(
      /```\n1 for \(var i = 2; i < 100; \+\+i\) \{\n[\s\S]*?\n```\n\nFigure 1\. Sample program: sieve of Eratosthenes/,
    );
    const caption = document.elements.findIndex((element) =>
      element.text.startsWith("Figure 1. Sample program"),
    );
    expect(document.elements[caption]?.type).toBe("caption");
    expect(document.elements[caption - 1]?.type).toBe("code");
    const list = document.elements.find((element) => element.type === "list");
    expect(list?.items?.map((item) => [item.marker, item.level])).toEqual([
      ["•", 1],
      ["•", 1],
      ["•", 1],
    ]);
    expect(list?.items?.[0]?.text).toMatch(/^We explain an algorithm for dynamically forming trace trees/);
  });
});
