import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { corpusPath, createTempDir, rejectionOf, runTool } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markTestOutputs, prepareTestInputs, testModeStamp } from "../src/index.js";

const fourPages = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const fourteenPages = corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf");
const stampsPerPage = async (pdf: string) =>
  (await runTool("pdftotext", [pdf, "-"])).stdout
    .split("\f")
    .slice(0, -1)
    .map((page) => page.replace(/\s+/g, " ").split(testModeStamp).length - 1);

describe("test mode's sandbox steps", () => {
  let scratch: { path: string; dispose(): Promise<void> };
  let runs = 0;
  /** A fresh work dir for each engine call, as the worker gives one. */
  const ctx = () => {
    runs += 1;
    return { workDir: join(scratch.path, String(runs)) };
  };

  beforeAll(async () => {
    scratch = await createTempDir("octavo-test-mark-");
  });
  afterAll(async () => {
    await scratch?.dispose();
  });

  it("checks each PDF input's pages and stamps the documents only, keeping their names", async () => {
    const inputs = [
      { path: fourPages, name: "outline.pdf" },
      // A named upload (Sign PDF's certificate) is not a document: never counted or stamped.
      { path: fourPages, name: "key.p12", field: "certificate" },
    ];
    const checked = await prepareTestInputs(inputs, { pagesPerInput: 10, mark: false }, ctx());
    expect(checked.outputs).toEqual([]);
    const stamped = await prepareTestInputs(inputs, { pagesPerInput: 10, mark: true }, ctx());
    expect(stamped.outputs).toHaveLength(1);
    expect(stamped.outputs[0]?.name).toBe("outline.pdf");
    expect(await stampsPerPage(stamped.outputs[0]?.path ?? "")).toEqual([1, 1, 1, 1]);
  });

  it("refuses an input over the page limit, and leaves what is not a PDF to the job's engine", async () => {
    const failure = await rejectionOf(
      prepareTestInputs(
        [{ path: fourteenPages, name: "paper.pdf" }],
        { pagesPerInput: 10, mark: false },
        ctx(),
      ),
      JobFailure,
    );
    expect(failure).toMatchObject({
      code: "invalid_input",
      message:
        "paper.pdf has 14 pages; test mode allows 10 pages per input file. Send a shorter file, or use a live key.",
    });
    const docx = corpusPath("office/tika_testWORD_various.docx");
    const other = await prepareTestInputs(
      [{ path: docx, name: "a.docx" }],
      { pagesPerInput: 10, mark: false },
      ctx(),
    );
    expect(other.outputs).toEqual([]);
  });

  it("stamps every page of a PDF output, and holds it to the pages of the inputs it came from", async () => {
    const options = { contentTypes: ["application/pdf"], pagesPerInput: 10 };
    const marked = await markTestOutputs(
      [{ path: fourteenPages, name: "merged.pdf" }],
      { ...options, maxPages: 20 },
      ctx(),
    );
    expect(marked.outputs[0]).toMatchObject({ name: "merged.pdf", contentType: "application/pdf" });
    expect(await stampsPerPage(marked.outputs[0]?.path ?? "")).toEqual(Array(14).fill(1));
    const refused = await rejectionOf(
      markTestOutputs([{ path: fourteenPages, name: "paper.pdf" }], { ...options, maxPages: 10 }, ctx()),
      JobFailure,
    );
    expect(refused).toMatchObject({
      code: "invalid_input",
      message:
        "The output paper.pdf has 14 pages; test mode allows 10 pages per input file. Send a shorter file, or use a live key.",
    });
  });

  it("fails on an output it cannot mark, naming it, rather than let it out unmarked", async () => {
    const list = join(scratch.path, "list.json");
    await writeFile(list, "[1, 2]");
    const notZip = join(scratch.path, "broken.docx");
    await writeFile(notZip, "not a zip");
    // No output is an image today (PDF to image renders stamped pages): an image would fail its job.
    const image = fourPages;
    for (const [path, name, contentType] of [
      [list, "list.json", "application/json"],
      [notZip, "broken.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
      [image, "page.png", "image/png"],
    ] as const) {
      const failure = await rejectionOf(
        markTestOutputs(
          [{ path, name }],
          { contentTypes: [contentType], pagesPerInput: 10, maxPages: 10 },
          ctx(),
        ),
        JobFailure,
      );
      expect(failure).toMatchObject({
        code: "conversion_failed",
        message: `${name} could not be marked "octavo test mode", as every output of a test job is, so it was not kept.`,
      });
    }
  });
});
