import { type CorpusEntry, corpusPath } from "@octavo/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobBody } from "./support/client.js";
import { imageFixtures } from "./support/image-fixtures.js";
import {
  formsAndAnnotations,
  pageCount,
  pdfInfo,
  pdfText,
  qpdfCheck,
  visiblePageSizes,
} from "./support/pdf-checks.js";
import { DAMAGED_CODES, pdfsOf, type Sweep, startSweep } from "./support/sweep.js";

// Issue 19's operations over the corpus, through the real API, workers and engines: every general PDF
// ends done with its output checked by qpdf, poppler or sharp; every damaged or mislabeled one ends done
// and checked, or failed with a code a client can act on, never internal or timeout. (Every encrypted
// one ends password_required: apps/worker/test/encrypted-inputs.test.ts.)

const WATERMARK = "OCTAVO SWEEP";
const TITLE = "Sweep title — ünïcode";
/** Low enough that the largest general files stay far inside the render caps. */
const SWEEP_DPI = 36;

interface PdfOperation {
  path: string;
  options: unknown;
  /**
   * What a done job's output must show; each returned string is a problem. `sound` is the input when its
   * pages are known (a general file); undefined for a damaged one, whose rebuilt copy decides them.
   */
  check(output: string[], sound: CorpusEntry | undefined): Promise<string[]>;
}

async function pdfOutputProblems([output = ""]: string[], pages: number | undefined): Promise<string[]> {
  const problems: string[] = [];
  const check = await qpdfCheck(output);
  if (check !== 0 && check !== 3) problems.push(`qpdf --check says ${check}`);
  if (pages !== undefined && (await pageCount(output)) !== pages) problems.push("the page count changed");
  return problems;
}

const squeezed = (text: string): string => text.replace(/\s+/g, "");

const pdfOperations: PdfOperation[] = [
  {
    path: "/v1/watermark",
    options: { text: WATERMARK, rotation: 0 },
    async check(outputs, sound) {
      const problems = await pdfOutputProblems(outputs, sound?.pages);
      if (!squeezed(await pdfText(outputs[0] ?? "", "raw")).includes(squeezed(WATERMARK)))
        problems.push("pdftotext does not find the watermark");
      return problems;
    },
  },
  {
    path: "/v1/page-numbers",
    options: { format: "p{n}/{total}", start: 1 },
    async check(outputs, sound) {
      const problems = await pdfOutputProblems(outputs, sound?.pages);
      const text = squeezed(await pdfText(outputs[0] ?? ""));
      const total = await pageCount(outputs[0] ?? "");
      for (const page of [1, total]) {
        if (!text.includes(`p${page}/${total}`)) problems.push(`pdftotext does not find p${page}/${total}`);
      }
      return problems;
    },
  },
  {
    path: "/v1/flatten",
    options: {},
    async check(outputs, sound) {
      const problems = await pdfOutputProblems(outputs, sound?.pages);
      const { fields, annotations } = await formsAndAnnotations(outputs[0] ?? "");
      if (fields > 0) problems.push(`${fields} form fields are left`);
      if (annotations.some((count) => count > 0)) problems.push("annotations are left");
      return problems;
    },
  },
  {
    path: "/v1/metadata",
    options: { title: TITLE, author: "octavo", keywords: ["sweep", "corpus"] },
    async check(outputs, sound) {
      const problems = await pdfOutputProblems(outputs, sound?.pages);
      const info = await pdfInfo(outputs[0] ?? "");
      if (info.Title !== TITLE) problems.push(`pdfinfo reads the title ${JSON.stringify(info.Title)}`);
      if (info.Author !== "octavo") problems.push(`pdfinfo reads the author ${JSON.stringify(info.Author)}`);
      return problems;
    },
  },
  {
    path: "/v1/convert/pdf-to-image",
    options: { dpi: SWEEP_DPI },
    async check(outputs, sound) {
      const problems: string[] = [];
      const { format, width = 0, height = 0 } = await sharp(outputs[0] ?? "").metadata();
      if (format !== "png") problems.push(`the first image is ${format}, not png`);
      if (sound === undefined) return problems;
      if (outputs.length !== sound.pages) problems.push(`${outputs.length} images for ${sound.pages} pages`);
      const [page] = await visiblePageSizes(corpusPath(sound.path));
      if (page !== undefined) {
        const expected = [page.width, page.height].map((points) => (points * SWEEP_DPI) / 72);
        if (Math.abs(width - (expected[0] ?? 0)) > 1 || Math.abs(height - (expected[1] ?? 0)) > 1)
          problems.push(`page 1 is ${width} × ${height} px, expected ${expected.join(" × ")}`);
      }
      return problems;
    },
  },
];

function failureProblem(label: string, job: JobBody, codes: readonly string[]): string[] {
  if (job.status === "failed" && codes.includes(job.error ?? "") && (job.message ?? "").length >= 20)
    return [];
  return [`${label}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`];
}

describe("issue 19's operations over the corpus, through the API (PostgreSQL, supervised Redis)", () => {
  let sweep: Sweep;
  beforeAll(async () => {
    sweep = await startSweep();
  });
  afterAll(async () => {
    await sweep?.close();
  });

  async function sweepPdfs(entries: CorpusEntry[], expectDone: (entry: CorpusEntry) => boolean) {
    const problems: string[] = [];
    const work = entries.flatMap((entry) => pdfOperations.map((operation) => ({ entry, operation })));
    await sweep.each(work, async ({ entry, operation }) => {
      const label = `${operation.path} ${entry.path}`;
      const job = await sweep.submit(operation.path, [entry], operation.options);
      if (job.status === "done") {
        const outputs = await sweep.downloadAll(job);
        const sound = expectDone(entry) ? entry : undefined;
        problems.push(...(await operation.check(outputs, sound)).map((problem) => `${label}: ${problem}`));
      } else if (expectDone(entry)) {
        problems.push(`${label}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
      } else {
        problems.push(...failureProblem(label, job, DAMAGED_CODES));
      }
    });
    return problems;
  }

  it("stamps, numbers, flattens, retitles and renders every general PDF", async () => {
    expect(await sweepPdfs(pdfsOf("general"), () => true)).toEqual([]);
  }, 1_200_000);

  it("ends every damaged or mislabeled PDF done and checked, or failed with a code a client can act on", async () => {
    // (That the mislabeled files which are not PDFs at all are refused as such: edit/test/flatten.test.ts.)
    const problems = await sweepPdfs([...pdfsOf("broken"), ...pdfsOf("mislabeled")], () => false);
    expect(problems).toEqual([]);
  }, 1_200_000);

  it("turns every fixture image into a PDF page, and refuses the ones that are not what they say", async () => {
    const problems: string[] = [];
    await sweep.each(imageFixtures(), async (fixture) => {
      const label = `/v1/convert/image-to-pdf ${fixture.name}`;
      const job = await sweep.submit("/v1/convert/image-to-pdf", [{ file: fixture.path }]);
      if (fixture.pages === undefined) {
        problems.push(...failureProblem(label, job, ["invalid_input"]));
        return;
      }
      if (job.status !== "done") {
        problems.push(`${label}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
        return;
      }
      const outputs = await sweep.downloadAll(job);
      problems.push(
        ...(await pdfOutputProblems(outputs, fixture.pages)).map((problem) => `${label}: ${problem}`),
      );
    });
    expect(problems).toEqual([]);
  }, 600_000);

  it("never leaves a job unfinished or an input stored", async () => {
    await sweep.expectNothingLeft();
  });
});
