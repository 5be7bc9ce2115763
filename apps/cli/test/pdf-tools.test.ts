import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, runOnFile } from "./support/client.js";
import { type Stack, startStack } from "./support/stack.js";

// Compress, OCR and PDF/A end to end through the API; their packages test the engines in depth.
describe("compress, OCR and PDF/A through the API", () => {
  let stack: Stack;
  let client: Client;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    stack = await startStack({ database: "postgres", redis: "supervised" });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    scratch = await createTempDir();
  });
  afterAll(async () => {
    await stack?.close();
    await scratch?.dispose();
  });

  const run = (path: string, file: string, options?: unknown) =>
    runOnFile(client, scratch.path, path, file, options);

  it("compresses an image-heavy file and reports what it achieved", async () => {
    const input = corpusPath("scanned/docling_old_newspaper.pdf");
    const { job, output } = await run("/v1/compress", input, { level: "recommended" });
    expect(job.status, job.message).toBe("done");
    expect(statSync(output).size).toBeLessThan(statSync(input).size * 0.4);
    expect(job.compression).toMatchObject({
      inputBytes: statSync(input).size,
      outputBytes: statSync(output).size,
    });
  });

  it("says so when targetKB cannot be reached, and returns the smallest result", async () => {
    const { job } = await run("/v1/compress", corpusPath("general/samplefiles_GeoTopo-komprimiert.pdf"), {
      targetKB: 20,
    });
    expect(job.status, job.message).toBe("done");
    expect(job.compression).toMatchObject({ targetKB: 20, targetMet: false });
    expect(job.warnings?.join(" ")).toMatch(/20 KB/);
  });

  it("grayscale on small files with no colour ends done, not 'the engines failed' (issue 32)", async () => {
    for (const file of ["general/cabinet_javascript.pdf", "general/ocrmypdf_livecycle.pdf"]) {
      const input = corpusPath(file);
      const { job, output } = await run("/v1/compress", input, { grayscale: true });
      expect(job.status, `${file}: ${job.message}`).toBe("done");
      if (statSync(output).size === statSync(input).size) {
        expect(job.warnings?.join(" "), file).toMatch(/has no colour to remove/);
      } else {
        expect(statSync(output).size, file).toBeLessThan(statSync(input).size);
      }
    }
  });

  it("adds a searchable text layer to a scan", async () => {
    const { job, output } = await run("/v1/ocr", corpusPath("scanned/tesseract_phototest.pdf"), {
      languages: ["eng"],
    });
    expect(job.status, job.message).toBe("done");
    expect(execFileSync("pdftotext", [output, "-"], { encoding: "utf8" })).toMatch(/quick brown dog jumped/i);
  });

  it("converts to PDF/A-2b with the identification in its metadata", async () => {
    const { job, output } = await run(
      "/v1/convert/pdf-to-pdfa",
      corpusPath("general/cabinet_text_only_fontsNotEmbedded.pdf"),
      { level: "2" },
    );
    expect(job.status, job.message).toBe("done");
    const meta = execFileSync("pdfinfo", ["-meta", output], { encoding: "utf8" });
    expect(meta).toMatch(/pdfaid:part[^0-9]*2/);
    // pdffonts: name type encoding emb sub uni object-id; "emb" is the fifth field from the end.
    const fonts = execFileSync("pdffonts", [output], { encoding: "utf8" }).trim().split("\n").slice(2);
    expect(fonts.length).toBeGreaterThan(0);
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5), line).toBe("yes");
  });
});
