import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { contentBombPdf, hugeImagePdf, manyObjectsPdf, manyPagesPdf, readManifest } from "@octavo/testing";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type EngineContext,
  type EngineInput,
  type EngineResult,
  merge,
  protect,
  repair,
  rotate,
  split,
  unlock,
} from "../src/index.js";
import { limits } from "../src/limits.js";
import { context, corpus, failureOf, qpdfPages } from "./helpers.js";

type Operation = (input: EngineInput, ctx: EngineContext) => Promise<EngineResult>;

const operations: Record<string, Operation> = {
  merge: (input, ctx) => merge([corpus("general/samplefiles_pdflatex-outline.pdf"), input], {}, ctx),
  split: (input, ctx) => split(input, {}, ctx),
  rotate: (input, ctx) => rotate(input, { angle: 90 }, ctx),
  protect: (input, ctx) =>
    protect(
      input,
      { userPassword: "pw", allowPrinting: true, allowCopying: false, allowEditing: false },
      ctx,
    ),
  unlock: (input, ctx) => unlock(input, { password: "" }, ctx),
  repair: (input, ctx) => repair(input, {}, ctx),
};
const allOperations = Object.keys(operations);
const allButUnlock = allOperations.filter((name) => name !== "unlock");

function operation(name: string): Operation {
  const found = operations[name];
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
}

/** Files that are not PDFs, and what the message must say they look like. */
const notPdfs: [string, RegExp][] = [
  ["mislabeled/pdfplumber_empty.pdf", /empty/],
  ["mislabeled/ocrmypdf_typewriter_png_renamed.pdf", /PNG image/],
  ["mislabeled/pydocx_test_docx_renamed.pdf", /Word document \(DOCX/],
  ["mislabeled/docling_table_06_html_renamed.pdf", /HTML page/],
  ["mislabeled/tika_testEXCEL-formats_xls_renamed.xlsx", /legacy Microsoft Office/],
  ["mislabeled/tika_testODTnotaZipFile.odt", /plain text/],
  ["mislabeled/docling_csv-pipe.csv", /plain text/],
  ["broken/tika_testWORD_truncated.docx", /ZIP|Word/],
  ["broken/paperless_multi-part-broken.odt", /ZIP|OpenDocument/],
  ["broken/ocrmypdf_invalid.pdf", /starts like a PDF but no page could be read/],
];

describe("inputs that are not PDFs", () => {
  for (const [file, looksLike] of notPdfs) {
    it.each(allOperations)(`${file} → invalid_input on %s`, async (name) => {
      const failure = await failureOf(operation(name)(corpus(file), await context()));
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toMatch(looksLike);
      expect(failure.message).toContain(file.split("/").pop());
    });
  }
});

/**
 * mislabeled/ also holds real PDFs behind a damaged header (a BOM, junk before %PDF, no header line) and a
 * PDF named .docx. Both parsers read them whole, so they are processed like any damaged PDF; refusing a
 * PDF for its name is the API's job, which checks extensions before a job exists.
 */
describe("PDFs behind a damaged header or a wrong name", () => {
  it.each([
    "mislabeled/tika_testPDF_bom.pdf",
    "mislabeled/pdfjs_issue6069.pdf",
    "mislabeled/pdfjs_bug1606566.pdf",
    "mislabeled/samplefiles_minimal-document_pdf_renamed.docx",
  ])("%s is processed", async (file) => {
    const result = await rotate(corpus(file), { angle: 90 }, await context());
    expect(await qpdfPages(result.outputs[0]?.path ?? "")).toBe(1);
  });
});

const encryptedFiles = [
  "encrypted/qpdf_c-r6-in.pdf", // user password
  "encrypted/qpdf_enc-R3_V2_O-master.pdf", // owner password only: opens, but is still encrypted
  "encrypted/pypdf_r6-owner-password.pdf",
  "encrypted/pdfjs_issue15893_reduced.pdf", // encrypted and damaged: qpdf alone reads it as unencrypted
];

describe("encrypted inputs", () => {
  for (const file of encryptedFiles) {
    it.each(allButUnlock)(`${file} → password_required on %s`, async (name) => {
      const failure = await failureOf(operation(name)(corpus(file), await context()));
      expect(failure.code).toBe("password_required");
      expect(failure.message).toMatch(/unlock/);
    });
  }

  // Every encrypted file of the corpus, as the API's corpus sweep once sent each of them to rotate.
  it.each(
    readManifest()
      .filter(({ path }) => path.startsWith("encrypted/") && path.endsWith(".pdf"))
      .map(({ path }) => path)
      .filter((path) => path !== "encrypted/tika_testMicrosoftIRMServices.pdf"),
  )("%s → password_required on rotate, saying what to do", async (file) => {
    const failure = await failureOf(operation("rotate")(corpus(file), await context()));
    expect(failure.code).toBe("password_required");
    expect(failure.message).toMatch(/unlock/);
    expect(failure.message.length).toBeGreaterThan(20);
  });

  it.each(allButUnlock)("the Microsoft IRM wrapper → conversion_failed on %s", async (name) => {
    const failure = await failureOf(
      operation(name)(corpus("encrypted/tika_testMicrosoftIRMServices.pdf"), await context()),
    );
    expect(failure.code).toBe("conversion_failed");
    expect(failure.message).toMatch(/MicrosoftIRMServices/);
  });
});

/** Damaged PDFs that qpdf or MuPDF can read are processed; the rest point the client to repair. */
const damaged: [string, number | "repair first"][] = [
  ["broken/cabinet_corruptionOneByteMissing.pdf", 1],
  ["broken/govdocs_error_set_2_020747.pdf", 12],
  ["broken/pdfjs_PDFBOX-3148-2-fuzzed.pdf", 1], // qpdf fails; MuPDF's rebuild is used
  ["broken/pdfjs_Pages-tree-refs.pdf", "repair first"], // page-tree loop: only Ghostscript (repair) breaks it
  ["broken/pdfjs_issue9418.pdf", "repair first"], // no page tree: only Ghostscript (repair) finds the page
  ["broken/pdfjs_poppler-67295-0.pdf", 1], // /Count 9999999999: the tree is rebuilt from its one page
  ["broken/pikepdf_cyclic-toc.pdf", 1],
  ["broken/qpdf_append-xref-loop.pdf", 30],
  ["broken/qpdf_issue-202.pdf", 10], // qpdf fails; MuPDF's rebuild is used
  ["broken/qpdf_outlines-with-loop.pdf", 30],
  ["broken/qpdf_pages-loop.pdf", "repair first"],
  ["broken/qpdf_xref-compressed-in-compressed.pdf", 30],
];

/** Files over the cheap limits, and the limit each refusal must name. */
const overLimits: [string, () => Buffer, RegExp][] = [
  [
    "pages.pdf",
    () => manyPagesPdf(limits.maxPages * 10),
    /claims 200,000 pages; files with more than 20,000 pages/,
  ],
  ["objects.pdf", () => manyObjectsPdf(limits.maxObjects), /more than 1,000,000 objects are not processed/],
  [
    "image.pdf",
    () => hugeImagePdf(100_000, 100_000),
    /100,000 × 100,000 pixels, 27\.9 GB decoded; images larger than 1 GB/,
  ],
  [
    "inflates.pdf",
    () => contentBombPdf(2 * 1024 ** 3),
    /stream \(object 4\) that inflates to more than 512 MB, a decompression bomb/,
  ],
];

describe("inputs over the cheap limits", () => {
  let dir: string;
  beforeAll(async () => {
    dir = (await context()).workDir;
    for (const [name, make] of overLimits) await writeFile(join(dir, name), make());
  });
  // The limits are read from MuPDF's probe before any other engine runs: the 200,000-page file took
  // 24 to 44 seconds of engine time per job before, refused now in about a second (bench/hardening.mjs).
  describe.each(overLimits)("%s", (name, _make, message) => {
    it.each(allOperations)(`invalid_input on %s, naming the limit`, async (operationName) => {
      const failure = await failureOf(
        operation(operationName)({ path: join(dir, name), name }, await context()),
      );
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toMatch(message);
      expect(failure.message).toContain(name);
    });
  });
  it("still rebuilds a page tree whose count lies (/Count 9999999999 over one page)", async () => {
    const result = await rotate(corpus("broken/pdfjs_poppler-67295-0.pdf"), { angle: 90 }, await context());
    expect(await qpdfPages(result.outputs[0]?.path ?? "")).toBe(1);
  });
});

describe("damaged PDFs", () => {
  it.each(damaged)("rotate %s → %s", async (file, want) => {
    const started = Date.now();
    const attempt = rotate(corpus(file), { angle: 90 }, await context());
    if (want === "repair first") {
      const failure = await failureOf(attempt);
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toMatch(/Run the repair operation/);
    } else {
      const result = await attempt;
      expect(await qpdfPages(result.outputs[0]?.path ?? "")).toBe(want);
    }
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it.each(damaged.filter(([, want]) => want === "repair first"))(
    "split %s → invalid_input, pointing to repair",
    async (file) => {
      const failure = await failureOf(split(corpus(file), {}, await context()));
      expect(failure.code).toBe("invalid_input");
      expect(failure.message).toMatch(/Run the repair operation/);
    },
  );

  it("splits and protects files only MuPDF can rebuild", async () => {
    const parts = await split(corpus("broken/qpdf_issue-202.pdf"), { ranges: "1-5,10" }, await context());
    expect(await Promise.all(parts.outputs.map((output) => qpdfPages(output.path)))).toEqual([5, 1]);
    expect(parts.warnings.join(" ")).toMatch(/damaged; MuPDF reconstructed it/);
    const locked = await protect(
      corpus("broken/pdfjs_PDFBOX-3148-2-fuzzed.pdf"),
      { userPassword: "pw", allowPrinting: true, allowCopying: true, allowEditing: true },
      await context(),
    );
    expect(locked.outputs).toHaveLength(1);
  });
});

describe("stopping", () => {
  it.each(allOperations)("an aborted signal fails %s with timeout", async (name) => {
    const controller = new AbortController();
    controller.abort(new Error("job deadline"));
    const failure = await failureOf(
      operation(name)(
        corpus("general/samplefiles_pdflatex-outline.pdf"),
        await context({ signal: controller.signal }),
      ),
    );
    expect(failure.code).toBe("timeout");
  });

  it("an abort in the middle of a long repair stops it promptly", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("job deadline")), 400);
    const started = Date.now();
    const ctx = await context({ signal: controller.signal });
    const failure = await failureOf(repair(corpus("broken/govdocs_error_set_2_027613.pdf"), {}, ctx));
    expect(failure.code).toBe("timeout");
    // The repair alone runs for half a minute; stopped, it ends within a few seconds even on a busy machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
