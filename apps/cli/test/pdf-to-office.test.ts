import { execFileSync } from "node:child_process";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, runOnFile } from "./support/client.js";
import { zipParts } from "./support/pdf-checks.js";
import { type Stack, startStack } from "./support/stack.js";

/** One part of an OOXML zip, as text (unzip is part of the test toolchain, like pdftotext). */
function part(file: string, entry: string): string {
  return execFileSync("unzip", ["-p", file, entry], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

// PDF to Word, PowerPoint and Excel end to end through the API; @octavo/pdf-office and @octavo/layout
// test the conversions in depth.
describe("PDF to Word, PowerPoint and Excel through the API", () => {
  let stack: Stack;
  let client: Client;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    stack = await startStack({ database: "sqlite", redis: "supervised" });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    scratch = await createTempDir();
  });
  afterAll(async () => {
    await stack?.close();
    await scratch?.dispose();
  });

  const run = (path: string, file: string, options?: unknown) =>
    runOnFile(client, scratch.path, path, file, options);

  it("converts a PDF to an editable Word document with flowing paragraphs", async () => {
    const { job, output } = await run(
      "/v1/convert/pdf-to-word",
      corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf"),
    );
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.[0]).toMatchObject({
      name: "pdfjs_tracemonkey_with_annotations.docx",
      contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    });
    const document = part(output, "word/document.xml");
    expect(document).toContain("Trace-based Just-in-Time");
    expect(document).not.toMatch(/<w:framePr|<w:txbxContent/);
    expect(document.match(/<w:p[ >]/g)?.length ?? 0).toBeGreaterThan(100);
  });

  it("converts a PDF to PowerPoint with one slide per page and text in text boxes", async () => {
    const { job, output } = await run(
      "/v1/convert/pdf-to-powerpoint",
      corpusPath("tables/tabula_schools.pdf"),
    );
    expect(job.status, job.message).toBe("done");
    const pages = Number(
      /Pages:\s+(\d+)/.exec(
        execFileSync("pdfinfo", [corpusPath("tables/tabula_schools.pdf")], { encoding: "utf8" }),
      )?.[1],
    );
    const slides = (await zipParts(output)).filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name));
    expect(slides).toHaveLength(pages);
    // Text boxes hold the page's text (the match is a boolean so a failure does not print the slide).
    expect(/txBox="1"[\s\S]*Lidstad/.test(part(output, "ppt/slides/slide1.xml"))).toBe(true);
  });

  it("converts the tables of a PDF to Excel sheets, with numbers as numbers", async () => {
    const { job, output } = await run("/v1/convert/pdf-to-excel", corpusPath("tables/tabula_schools.pdf"), {
      mode: "tables",
    });
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.[0]?.name).toBe("tabula_schools.xlsx");
    const sheet = part(output, "xl/worksheets/sheet1.xml");
    // A numeric cell carries no t="s" (shared string) type: the Zip column holds numbers.
    expect(sheet).toMatch(/<c r="[A-Z]+\d+"(?: s="\d+")?><v>\d{5}<\/v><\/c>/);
  });

  it("fails a PDF without tables with no_tables, and an encrypted one with password_required", async () => {
    const prose = await run("/v1/convert/pdf-to-excel", corpusPath("general/samplefiles_crazyones-pdfa.pdf"));
    expect(prose.job).toMatchObject({ status: "failed", error: "no_tables" });
    expect(prose.job.message).toMatch(/mode/);
    const encrypted = await run("/v1/convert/pdf-to-word", corpusPath("encrypted/pdfjs_issue6010_2.pdf"));
    expect(encrypted.job).toMatchObject({ status: "failed", error: "password_required" });
  });

  it("answers 400 for an unknown Excel mode, naming the option", async () => {
    const created = await client.postFiles(
      "/v1/convert/pdf-to-excel",
      [{ path: corpusPath("tables/tabula_schools.pdf") }],
      { mode: "cells" },
    );
    expect(created.status).toBe(400);
    expect(created.body.error).toBe("invalid_options");
    expect(JSON.stringify(created.body)).toMatch(/mode/);
  });
});
