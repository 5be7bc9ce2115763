import { type CorpusEntry, corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encryptionSummary,
  isEncrypted,
  pageCount,
  pageRotations,
  qpdfCheck,
  requiresPassword,
  zipParts,
} from "./support/pdf-checks.js";
import {
  DAMAGED_CODES,
  MISLABELED_BUT_READABLE,
  manifest,
  nameOf as name,
  pdfsOf,
  type Sweep,
  startSweep,
} from "./support/sweep.js";

// Every relevant corpus file through the real API, workers and engines. Each job must end `done` with
// its output checked by qpdf/poppler, or `failed` with the code listed here; nothing else passes.

/** Files whose outcome is not "done with the manifest's page count", and why. */
const UNLOCK_FAILURES: Record<string, string> = {
  "cabinet_encryption_openpassword.pdf": "wrong_password", // its open password is not documented
  "tika_testMicrosoftIRMServices.pdf": "conversion_failed", // IRM payload: no password can open it
};
const REPAIR_EXPECTED: Record<string, { code: string } | { pages: number }> = {
  "ocrmypdf_invalid.pdf": { code: "invalid_input" }, // a header line and text: nothing to recover
  "pdfjs_poppler-67295-0.pdf": { pages: 1 }, // claims 9 999 999 999 pages, holds one
  "pdfjs_Pages-tree-refs.pdf": { pages: 1 }, // claims 2, holds one page and a loop
  "pdfjs_issue9418.pdf": { pages: 1 }, // qpdf finds 0 pages; Ghostscript recovers the one page
  "pikepdf_cyclic-toc.pdf": { pages: 1 }, // qpdf counts 0 through the cyclic tree; the page is there
};
/** Damaged page trees that only the repair operation (Ghostscript) recovers. */
const NEEDS_REPAIR_FIRST = new Set([
  "pdfjs_Pages-tree-refs.pdf",
  "qpdf_pages-loop.pdf",
  "pdfjs_issue9418.pdf",
]);
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

  it("unlocks every encrypted file with its password", async () => {
    await each(pdfsOf("encrypted"), async (entry) => {
      const job = await submit("/v1/unlock", [entry], { password: entry.userPassword ?? "not-the-password" });
      const expectedFailure = UNLOCK_FAILURES[name(entry)];
      if (expectedFailure) {
        expect(job, entry.path).toMatchObject({ status: "failed", error: expectedFailure });
        return;
      }
      expect(job.status, `${entry.path}: ${job.message}`).toBe("done");
      const [output = ""] = await downloadAll(job);
      expect(await isEncrypted(output), entry.path).toBe(false);
      expect(await pageCount(output), entry.path).toBe(entry.pages);
    });
  }, 600_000);

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

  it("fails every encrypted input of the other operations with password_required", async () => {
    await each(pdfsOf("encrypted"), async (entry) => {
      const job = await submit("/v1/rotate", [entry]);
      const expected =
        name(entry) === "tika_testMicrosoftIRMServices.pdf" ? "conversion_failed" : "password_required";
      expect(job, entry.path).toMatchObject({ status: "failed", error: expected });
      expect(job.message?.length).toBeGreaterThan(20);
    });
  }, 600_000);

  it("repairs every damaged PDF into one that passes qpdf --check, or says it is beyond repair", async () => {
    await each(pdfsOf("broken"), async (entry) => {
      const job = await submit("/v1/repair", [entry]);
      const expected = REPAIR_EXPECTED[name(entry)] ?? { pages: entry.pages ?? -1 };
      if ("code" in expected) {
        expect(job, entry.path).toMatchObject({ status: "failed", error: expected.code });
        return;
      }
      expect(job.status, `${entry.path}: ${job.message}`).toBe("done");
      const [output = ""] = await downloadAll(job);
      expect([0, 3], entry.path).toContain(await qpdfCheck(output));
      expect(await pageCount(output), entry.path).toBe(expected.pages);
    });
  }, 600_000);

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

  it("sends damaged page trees to repair, and refuses files that are not PDFs", async () => {
    const damaged = pdfsOf("broken").filter((entry) => NEEDS_REPAIR_FIRST.has(name(entry)));
    await each(damaged, async (entry) => {
      const job = await submit("/v1/split", [entry]);
      expect(job, entry.path).toMatchObject({ status: "failed", error: "invalid_input" });
      expect(job.message).toMatch(/repair/);
    });
    await each(pdfsOf("mislabeled"), async (entry) => {
      const job = await submit("/v1/rotate", [entry]);
      if (MISLABELED_BUT_READABLE.has(name(entry))) {
        expect(job.status, `${entry.path}: ${job.message}`).toBe("done");
      } else {
        expect(job, entry.path).toMatchObject({ status: "failed", error: "invalid_input" });
      }
    });
    const notPdf = manifest.find(
      (entry) => entry.path === "mislabeled/samplefiles_minimal-document_pdf_renamed.docx",
    );
    if (!notPdf) throw new Error("corpus file missing");
    const refused = await sweep.currentClient().postFiles("/v1/rotate", [{ path: corpusPath(notPdf.path) }]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_input");
  }, 600_000);

  it("compress, OCR and PDF/A refuse encrypted and mislabeled inputs, and end every damaged file clearly", async () => {
    const tools = ["/v1/compress", "/v1/ocr", "/v1/convert/pdf-to-pdfa"] as const;
    // Every mismatch is collected, so one run shows them all.
    const problems: string[] = [];
    const encrypted = pdfsOf("encrypted").flatMap((entry) => tools.map((path) => ({ entry, path })));
    await each(encrypted, async ({ entry, path }) => {
      const job = await submit(path, [entry]);
      const expected =
        name(entry) === "tika_testMicrosoftIRMServices.pdf" ? DAMAGED_CODES : ["password_required"];
      if (job.status !== "failed" || !expected.includes(job.error ?? "")) {
        problems.push(`${path} ${entry.path}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
      }
    });
    // OCR of the 429-page damaged file alone would outlast the job timeout; the small ones show the rule.
    const damaged = [...pdfsOf("broken"), ...pdfsOf("mislabeled")].flatMap((entry) =>
      tools.filter((path) => path !== "/v1/ocr" || (entry.pages ?? 0) <= 20).map((path) => ({ entry, path })),
    );
    await each(damaged, async ({ entry, path }) => {
      const job = await submit(path, [entry]).catch((error: unknown) => {
        problems.push(`${path} ${entry.path}: ${String(error)}`);
        return undefined;
      });
      if (!job) return;
      if (job.status === "done") {
        const [output = ""] = await downloadAll(job);
        const check = await qpdfCheck(output);
        if (check !== 0 && check !== 3)
          problems.push(`${path} ${entry.path}: done, but qpdf --check says ${check}`);
      } else if (
        job.status !== "failed" ||
        !DAMAGED_CODES.includes(job.error ?? "") ||
        (job.message ?? "").length < 20
      ) {
        problems.push(`${path} ${entry.path}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
      }
    });
    expect(problems).toEqual([]);
  }, 1_200_000);

  it("PDF to Word, PowerPoint and Excel refuse encrypted inputs and end every damaged file clearly", async () => {
    const conversions = [
      { path: "/v1/convert/pdf-to-word", options: undefined, part: "word/document.xml" },
      { path: "/v1/convert/pdf-to-powerpoint", options: undefined, part: "ppt/presentation.xml" },
      // Pages mode: a damaged file that keeps no table would otherwise end no_tables, which is tested apart.
      { path: "/v1/convert/pdf-to-excel", options: { mode: "pages" }, part: "xl/workbook.xml" },
    ] as const;
    const problems: string[] = [];
    const encrypted = pdfsOf("encrypted").flatMap((entry) => conversions.map((to) => ({ entry, to })));
    await each(encrypted, async ({ entry, to }) => {
      const job = await submit(to.path, [entry], to.options);
      const expected =
        name(entry) === "tika_testMicrosoftIRMServices.pdf" ? DAMAGED_CODES : ["password_required"];
      if (job.status !== "failed" || !expected.includes(job.error ?? "")) {
        problems.push(`${to.path} ${entry.path}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
      }
    });
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
