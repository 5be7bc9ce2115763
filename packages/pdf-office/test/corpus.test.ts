// PDF → Word and PDF → PowerPoint on the born-digital PDFs of corpus/general and corpus/tables, as the
// issue measures them: word recall against pdftotext, Word paragraphs flowing (no frames, no text boxes),
// one slide per page with the text in text boxes. All 130 files, every run.
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { ChildPool } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, corpusPath, part, readZip, wordRecall, workDir } from "./helpers.js";
import {
  type BornDigital,
  bornDigitalCorpus,
  docxFlow,
  paragraphTexts,
  slideXmls,
  textShapesOutsideTextBoxes,
} from "./office-text.js";

/** Two engine processes: the machine has two cores. */
const engines = new ChildPool<Record<string, unknown>, ConversionAnswer>(
  fileURLToPath(new URL("./engine-child.mjs", import.meta.url)),
  { size: 2, callsPerChild: 50 },
);

interface ConversionAnswer {
  result?: { outputs: { path: string }[] };
  failure?: { code: string; message: string };
  seconds: number;
}

/** The recall the issue asks for. */
const threshold = 0.98;

interface Measured {
  seconds: number;
  recall: number;
  missing: string[];
  sourceWords: number;
}

interface Outcome {
  input: BornDigital;
  docx: Measured & { paragraphs: number; framed: number };
  pptx: Measured & { slides: number; strayShapes: number };
}

async function convert(kind: "word" | "powerpoint", input: BornDigital) {
  const jobDir = await workDir();
  try {
    const answer = await engines.call({
      kind,
      path: corpusPath(input.file),
      name: basename(input.file),
      workDir: jobDir,
    });
    if (answer.failure)
      throw new Error(`${kind} ${input.file}: ${answer.failure.code}: ${answer.failure.message}`);
    const zip = await readZip(answer.result?.outputs[0]?.path ?? "");
    return { zip, seconds: answer.seconds };
  } finally {
    await cleanup(jobDir);
  }
}

async function measure(input: BornDigital): Promise<Outcome> {
  const word = await convert("word", input);
  const document = part(word.zip, "word/document.xml");
  const docxRecall = wordRecall(input.reference, paragraphTexts(document, "w").join("\n"));
  const powerpoint = await convert("powerpoint", input);
  const slides = slideXmls(powerpoint.zip);
  const pptxRecall = wordRecall(
    input.reference,
    slides.map((slide) => paragraphTexts(slide, "a").join("\n")).join("\n"),
  );
  return {
    input,
    docx: { seconds: word.seconds, ...docxRecall, ...docxFlow(document) },
    pptx: {
      seconds: powerpoint.seconds,
      ...pptxRecall,
      slides: slides.length,
      strayShapes: slides.reduce((sum, slide) => sum + textShapesOutsideTextBoxes(slide), 0),
    },
  };
}

/** Every file, two at a time (one per engine process). */
async function measureAll(inputs: BornDigital[]): Promise<Outcome[]> {
  return Promise.all(inputs.map((input) => measure(input)));
}

function report(outcomes: Outcome[]): string {
  const percent = (value: number) => `${(value * 100).toFixed(2).padStart(6)} %`;
  const perPage = (seconds: number, pages: number) => (seconds / Math.max(1, pages)).toFixed(2).padStart(5);
  const rows = outcomes.map(({ input, docx, pptx }) =>
    [
      input.file.padEnd(80),
      String(input.pages).padStart(5),
      percent(docx.recall),
      percent(pptx.recall),
      perPage(docx.seconds, input.pages),
      perPage(pptx.seconds, input.pages),
    ].join(" "),
  );
  const mean = (pick: (o: Outcome) => number) => outcomes.reduce((s, o) => s + pick(o), 0) / outcomes.length;
  return [
    `${"file".padEnd(80)} pages docx rec. pptx rec. docx s/p pptx s/p`,
    ...rows,
    `${"mean".padEnd(86)} ${percent(mean((o) => o.docx.recall))} ${percent(mean((o) => o.pptx.recall))}`,
  ].join("\n");
}

const corpus = bornDigitalCorpus();
const inputs = corpus.files;

describe("PDF to Word and PowerPoint on the born-digital corpus", () => {
  let outcomes: Outcome[] = [];
  let started = 0;

  beforeAll(async () => {
    started = Date.now();
    outcomes = await measureAll(inputs);
    console.log(report(outcomes));
  }, 20 * 60_000);
  afterAll(async () => {
    await engines.close();
    console.log(`corpus sweep: ${((Date.now() - started) / 1000).toFixed(0)} s for ${inputs.length} files`);
  });

  it("takes every born-digital PDF of general/ and tables/, and no scan", () => {
    expect(corpus.files).toHaveLength(130);
    expect(corpus.skipped.sort()).toEqual([
      "general/cabinet_balloon_a1b_jp2k.pdf (no words)",
      "general/ocrmypdf_enormous.pdf (no words)",
      "general/ocrmypdf_livecycle.pdf (no words)",
      "general/pikepdf_sandwich.pdf (scan)",
      "tables/camelot_birdisland.pdf (encrypted)",
      "tables/camelot_image.pdf (scan)",
      "tables/extractous_table-multi-row-column-cells.pdf (scan)",
    ]);
  });

  for (const format of ["docx", "pptx"] as const) {
    // Recall over the set is pooled (every source word of every file counts once), the usual micro-average:
    // a two-word file whose reference pdftotext itself misreads (samplefiles_habibi.pdf: 1 of 2 words)
    // would otherwise weigh as much as 117 pages. The median and a floor per file keep every file in view.
    it(`${format}: keeps at least 98 % of the words over the set and in the median file`, () => {
      const words = outcomes.reduce((sum, outcome) => sum + outcome[format].sourceWords, 0);
      const found = outcomes.reduce((sum, o) => sum + o[format].recall * o[format].sourceWords, 0);
      const below = outcomes.filter((outcome) => outcome[format].recall < threshold);
      const detail = below.map((o) => `${o.input.file}: ${o[format].missing.slice(0, 12).join(" ")}`);
      console.log(
        `${format}: pooled recall ${(found / words).toFixed(4)}; below ${threshold}:\n${detail.join("\n")}`,
      );
      expect(found / words).toBeGreaterThanOrEqual(threshold);
      const recalls = outcomes.map((outcome) => outcome[format].recall).sort((a, b) => a - b);
      expect(recalls[Math.floor(recalls.length / 2)]).toBeGreaterThanOrEqual(threshold);
      for (const outcome of outcomes)
        expect(outcome[format].recall, outcome.input.file).toBeGreaterThanOrEqual(0.5);
    });
  }

  it("docx: every paragraph flows (no frames, no text boxes)", () => {
    for (const { input, docx } of outcomes) {
      expect(docx.paragraphs, input.file).toBeGreaterThan(0);
      expect(docx.framed, input.file).toBe(0);
    }
  });

  it("pptx: one slide per page, every text in a text box", () => {
    for (const { input, pptx } of outcomes) {
      expect(pptx.slides, input.file).toBe(input.pages);
      expect(pptx.strayShapes, input.file).toBe(0);
    }
  });
});
