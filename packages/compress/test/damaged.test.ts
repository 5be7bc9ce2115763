import { readdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rewriteWithGhostscript } from "../src/ghostscript.js";
import { type CompressOptions, compress } from "../src/index.js";
import { cleanup, corpus, corpusDir, facts, qpdfCheckExit, workDir } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await workDir();
});
afterEach(async () => {
  await cleanup(dir);
});

/** Per file: a hang shows up as the abort (code timeout, not allowed) or, in synchronous code, the test timeout. */
const deadlineMs = 75_000;

function run(path: string, options: Partial<CompressOptions> = {}) {
  return compress(
    { path, name: basename(path) },
    { level: "recommended", grayscale: false, ...options },
    { workDir: dir, signal: AbortSignal.timeout(deadlineMs) },
  );
}

async function outcome(path: string, options: Partial<CompressOptions> = {}) {
  try {
    return { result: await run(path, options) };
  } catch (error) {
    return { error };
  }
}

const sweep = ["broken", "mislabeled"].flatMap((folder) =>
  readdirSync(join(corpusDir, folder))
    .sort()
    .map((file) => `${folder}/${file}`),
);

describe("every broken and mislabeled corpus file", () => {
  it.each(sweep)(
    "%s ends done with an output qpdf --check accepts, or a clear refusal",
    async (file) => {
      const got = await outcome(corpus(file));
      if (got.error !== undefined) {
        expect(got.error).toBeInstanceOf(JobFailure);
        const failure = got.error as JobFailure;
        expect(["invalid_input", "password_required", "conversion_failed"]).toContain(failure.code);
        expect(failure.message.length).toBeGreaterThan(20);
        return;
      }
      const output = got.result?.outputs[0]?.path ?? "";
      expect([0, 3]).toContain(qpdfCheckExit(output));
    },
    deadlineMs + 15_000,
  );
});

describe("every encrypted corpus file", () => {
  const encrypted = readdirSync(join(corpusDir, "encrypted"))
    .filter((file) => file.endsWith(".pdf") && file !== "tika_testMicrosoftIRMServices.pdf")
    .sort()
    .map((file) => `encrypted/${file}`);
  it.each(encrypted)("%s → password_required", async (file) => {
    const { error } = await outcome(corpus(file));
    expect(error).toBeInstanceOf(JobFailure);
    expect(error).toMatchObject({ code: "password_required" });
  });
});

describe("damaged inputs", () => {
  it("refuses a rights-management wrapper like the other operations", async () => {
    const { error } = await outcome(corpus("encrypted/tika_testMicrosoftIRMServices.pdf"));
    expect(error).toBeInstanceOf(JobFailure);
    expect((error as JobFailure).code).toBe("conversion_failed");
    expect((error as JobFailure).message).toMatch(/protected wrapper/);
  });

  it("finishes qpdf issue 202 (deeply nested, damaged) within seconds", async () => {
    const started = Date.now();
    const input = corpus("broken/qpdf_issue-202.pdf");
    const result = await run(input);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect([0, 3]).toContain(qpdfCheckExit(result.outputs[0]?.path ?? ""));
    expect(result.warnings.join(" ")).toMatch(/damaged/);
  });

  it("bounds a Ghostscript rewrite that never finishes: the route reports timedOut instead of hanging", async () => {
    // The legacy interpreter loops on the damaged original (> 150 s); compress gives it a few times what the
    // current interpreter took, and drops the route when it runs over.
    const started = Date.now();
    const outcome = await rewriteWithGhostscript(corpus("broken/qpdf_issue-202.pdf"), join(dir, "gs.pdf"), {
      gray: false,
      legacy: true,
      signal: undefined,
      timeoutMs: 3_000,
    });
    expect(outcome).toMatchObject({ ok: false, timedOut: true });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("repairs a broken LZW content stream even when only lossless compression is asked", async () => {
    const input = corpus("broken/qpdf_broken-lzw.pdf");
    expect(qpdfCheckExit(input)).toBe(2);
    const result = await run(input, { level: "low" });
    const output = result.outputs[0]?.path ?? "";
    expect([0, 3]).toContain(qpdfCheckExit(output));
    expect(result.report.outputBytes).toBeLessThan(result.report.inputBytes);
    expect(result.warnings.join(" ")).toMatch(/damaged \(qpdf --check: .+\); .+ rebuilt it/);
    expect((await facts(output)).pages).toBe(1);
  });

  it("returns sound copies of damaged govdocs files, smaller than the originals", async () => {
    for (const file of ["broken/govdocs_error_set_2_189478.pdf", "broken/govdocs_error_set_2_027613.pdf"]) {
      const input = corpus(file);
      const result = await run(input);
      const output = result.outputs[0]?.path ?? "";
      expect([0, 3]).toContain(qpdfCheckExit(output));
      expect(result.report.ratio).toBeLessThan(1);
      expect((await facts(output)).pages).toBe((await facts(input)).pages);
    }
  });

  it("returns a sound copy, larger than the damaged original, when that is the only sound result", async () => {
    // One page under a looping page tree: only Ghostscript's rewrite passes qpdf --check, and it is larger
    // than the 1 KB original. The damaged original is not returned, and failing would leave the user nothing.
    const input = corpus("broken/qpdf_pages-loop.pdf");
    const result = await run(input);
    const output = result.outputs[0]?.path ?? "";
    expect([0, 3]).toContain(qpdfCheckExit(output));
    expect((await stat(output)).size).toBe(result.report.outputBytes);
    expect(result.report.outputBytes).toBeGreaterThan(result.report.inputBytes);
    expect(result.warnings.join(" ")).toMatch(
      /sound repaired copy is returned instead of the damaged original/,
    );
  });

  it("fails clearly when no sound copy keeps the content", async () => {
    // qpdf crashes checking it; qpdf's rewrite is sound but loses the 11 bookmarks MuPDF reads.
    const { error } = await outcome(corpus("broken/qpdf_xref-compressed-in-compressed.pdf"));
    expect(error).toBeInstanceOf(JobFailure);
    expect((error as JobFailure).code).toBe("conversion_failed");
    expect((error as JobFailure).message).toMatch(/repair operation/);
  });
});
