import { type CorpusEntry, corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encryptionSummary,
  pageCount,
  pageRotations,
  requiresPassword,
  zipParts,
} from "./support/pdf-checks.js";
import { DAMAGED_CODES, manifest, nameOf as name, pdfsOf, type Sweep, startSweep } from "./support/sweep.js";

// Corpus files through the real API, workers and engines. Each job must end `done` with its output
// checked by qpdf/poppler, or `failed` with the code listed here; nothing else passes. Each corpus file is
// swept once per operation: the engines' own tests sweep unlock, repair, rotate and split on damaged and
// encrypted files (engines/test/unlock, repair, inputs), compress (compress/test/damaged), OCR
// (ocr/test/inputs) and PDF/A (pdfa/test/pdfa), and the worker's dispatch takes every encrypted file
// through the other operations (apps/worker/test/encrypted-inputs); this file keeps the rest, and what
// only the service shows.

describe("the operations over the corpus, through the API (PostgreSQL, supervised Redis)", () => {
  let sweep: Sweep;
  const submit: Sweep["submit"] = (...args) => sweep.submit(...args);
  const downloadAll: Sweep["downloadAll"] = (job) => sweep.downloadAll(job);
  const each: Sweep["each"] = (entries, work) => sweep.each(entries, work);

  beforeAll(async () => {
    sweep = await startSweep();
  });
  afterAll(async () => {
    await sweep?.close();
  });

  it("refuses a wrong password, and accepts an R6 password as typed (SASLprep)", async () => {
    const r6 = manifest.find((entry) => entry.path === "encrypted/pypdf_r6-both-passwords.pdf");
    const saslprep = manifest.find((entry) => entry.path === "encrypted/pdfjs_saslprep-r6.pdf");
    if (!r6 || !saslprep) throw new Error("corpus files missing");
    expect(await submit("/v1/unlock", [r6], { password: "guess" })).toMatchObject({
      status: "failed",
      error: "wrong_password",
    });
    expect((await submit("/v1/unlock", [saslprep], { password: "S\u00aaSL\u00adprep" })).status).toBe("done");
  });

  it("rotates, splits and protects every general PDF, and merges them in pairs", async () => {
    const general = pdfsOf("general");
    await each(general, async (entry) => {
      const input = corpusPath(entry.path);
      const before = await pageRotations(input);

      const rotated = await submit("/v1/rotate", [entry], { angle: 90 });
      expect(rotated.status, `${entry.path}: ${rotated.message}`).toBe("done");
      const [rotatedFile = ""] = await downloadAll(rotated);
      expect(await pageRotations(rotatedFile), entry.path).toEqual(before.map((angle) => (angle + 90) % 360));

      const split = await submit("/v1/split", [entry]);
      expect(split.status, `${entry.path}: ${split.message}`).toBe("done");
      expect(split.outputs, entry.path).toHaveLength(entry.pages ?? -1);
      expect(split.outputs?.[0]?.name).toBe(name(entry).replace(/\.pdf$/, "-p1.pdf"));

      const protectedJob = await submit("/v1/protect", [entry], {
        userPassword: "open sesame",
        allowPrinting: false,
      });
      expect(protectedJob.status, `${entry.path}: ${protectedJob.message}`).toBe("done");
      const [locked = ""] = await downloadAll(protectedJob);
      expect(await requiresPassword(locked), entry.path).toBe(true);
      expect(await encryptionSummary(locked, "open sesame")).toMatch(/R = 6/);
      expect(await pageCount(locked, "open sesame"), entry.path).toBe(entry.pages);
    });

    const pairs = general.flatMap((entry, index) =>
      index % 2 === 0 && general[index + 1] ? [[entry, general[index + 1] as CorpusEntry]] : [],
    );
    await each(pairs, async (pair) => {
      const merged = await submit("/v1/merge", pair);
      expect(merged.status, `${pair[0]?.path}: ${merged.message}`).toBe("done");
      const [output = ""] = await downloadAll(merged);
      expect(await pageCount(output)).toBe((pair[0]?.pages ?? 0) + (pair[1]?.pages ?? 0));
    });
  }, 1_200_000);

  it("refuses a file that is not a PDF at upload, before any job exists", async () => {
    const notPdf = manifest.find(
      (entry) => entry.path === "mislabeled/samplefiles_minimal-document_pdf_renamed.docx",
    );
    if (!notPdf) throw new Error("corpus file missing");
    const refused = await sweep.currentClient().postFiles("/v1/rotate", [{ path: corpusPath(notPdf.path) }]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_input");
  });

  it("PDF to Word, PowerPoint and Excel end every damaged file clearly", async () => {
    const conversions = [
      { path: "/v1/convert/pdf-to-word", options: undefined, part: "word/document.xml" },
      { path: "/v1/convert/pdf-to-powerpoint", options: undefined, part: "ppt/presentation.xml" },
      // Pages mode: a damaged file that keeps no table would otherwise end no_tables, which is tested apart.
      { path: "/v1/convert/pdf-to-excel", options: { mode: "pages" }, part: "xl/workbook.xml" },
    ] as const;
    const problems: string[] = [];
    // (Every encrypted file through the same conversions: apps/worker/test/encrypted-inputs.test.ts.)
    // The 429-page damaged scan would be OCRed page by page; the smaller files show the rule.
    const damaged = [...pdfsOf("broken"), ...pdfsOf("mislabeled")]
      .filter((entry) => (entry.pages ?? 0) <= 50)
      .flatMap((entry) => conversions.map((to) => ({ entry, to })));
    await each(damaged, async ({ entry, to }) => {
      const job = await submit(to.path, [entry], to.options).catch((error: unknown) => {
        problems.push(`${to.path} ${entry.path}: ${String(error)}`);
        return undefined;
      });
      if (!job) return;
      if (job.status === "done") {
        const [output = ""] = await downloadAll(job);
        const parts = await zipParts(output);
        if (!parts.includes(to.part))
          problems.push(`${to.path} ${entry.path}: done, but ${to.part} is missing`);
      } else if (
        job.status !== "failed" ||
        !DAMAGED_CODES.includes(job.error ?? "") ||
        (job.message ?? "").length < 20
      ) {
        problems.push(`${to.path} ${entry.path}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
      }
    });
    expect(problems).toEqual([]);
  }, 1_200_000);

  it("never leaves a job unfinished or an input stored", async () => {
    await sweep.expectNothingLeft();
  });
});
