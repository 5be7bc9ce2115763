import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { OpenApiDocument } from "./support/openapi-document.js";
import type { Schema } from "./support/schema-values.js";
import { type Stack, startStack } from "./support/stack.js";

/*
 * PDF to Markdown through the real API and workers: each format and option on corpus files, a scan, a
 * 500-page document and an OCR → Markdown pipeline, every JSON output checked against the served
 * OpenAPI document's MarkdownDocument schema. The engine's finer behaviour (reading order, right-to-left
 * text, chunk bounds) is tested in packages/pdf-office/test/markdown.test.ts; the quality figures are
 * bench/markdown's.
 */

const path = "/v1/convert/pdf-to-markdown";
const tracemonkey = corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf"); // 14 pages, 2 columns
const outlined = corpusPath("general/samplefiles_pdflatex-outline.pdf"); // 4 pages, numbered pages
const illustrated = corpusPath("general/docling_redp5110_sampled.pdf"); // figures, running footers
const linked = corpusPath("tables/icdar2013_eu-001.pdf"); // web links in the text
const scan = corpusPath("scanned/tesseract_phototest.pdf");

interface Element {
  type: string;
  page: number;
  bbox: number[];
  text: string;
  level?: number;
  links?: { text: string; uri: string }[];
  items?: { text: string; links?: { text: string; uri: string }[] }[];
  image?: string;
}
interface MarkdownJson {
  pageCount: number;
  pages: number[];
  ocrPages: number[];
  elements: Element[];
  chunks?: { text: string; elements: number[]; headings: string[]; pages: { first: number; last: number } }[];
}

let stack: Stack;
let client: Client;
let scratch: Awaited<ReturnType<typeof createTempDir>>;
let openApi: OpenApiDocument;

beforeAll(async () => {
  stack = await startStack({
    database: "sqlite",
    redis: "supervised",
    // The 500-page document takes about a minute alone; three test files share two cores in a run.
    env: { OCTAVO_JOB_TIMEOUT_SECONDS: "900" },
  });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  scratch = await createTempDir("octavo-markdown-");
  openApi = new OpenApiDocument((await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as Schema);
});
afterAll(async () => {
  await stack?.close();
  await scratch?.dispose();
});

/** Posts one file, waits for the job and downloads every output; the job and the outputs' bytes. */
async function convert(file: string, options?: unknown, timeoutMs = 300_000) {
  const created = await client.postFiles(path, [{ path: file }], options);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const job = await client.waitForJob(String(created.body.id), timeoutMs);
  return { job, outputs: await downloads(job) };
}

async function downloads(job: JobBody): Promise<{ name: string; contentType: string; bytes: Buffer }[]> {
  const outputs = [];
  for (const output of job.outputs ?? []) {
    const download = await client.download(String(output.url));
    expect(download.status).toBe(200);
    outputs.push({ name: output.name, contentType: output.contentType, bytes: download.bytes });
  }
  return outputs;
}

async function markdownOf(file: string, options: Record<string, unknown> = {}): Promise<string> {
  const { job, outputs } = await convert(file, options);
  expect(job.status, job.message).toBe("done");
  return outputs[0]?.bytes.toString("utf8") ?? "";
}

/** The JSON output, after checking it against the served document's MarkdownDocument schema. */
async function jsonOf(file: string, options: Record<string, unknown> = {}): Promise<MarkdownJson> {
  const { job, outputs } = await convert(file, { ...options, format: "json" });
  expect(job.status, job.message).toBe("done");
  expect(outputs[0]?.contentType).toBe("application/json");
  const document: unknown = JSON.parse(outputs[0]?.bytes.toString("utf8") ?? "");
  expect(openApi.allows(["components", "schemas", "MarkdownDocument"], document)).toBe(true);
  return document as MarkdownJson;
}

describe("formats", () => {
  it("writes Markdown: headings from the fonts, paragraphs joined across the column break, no page numbers", async () => {
    const { job, outputs } = await convert(tracemonkey);
    expect(job.status, job.message).toBe("done");
    expect(job.credits).toBe(2);
    expect(outputs.map((output) => [output.name, output.contentType])).toEqual([
      ["pdfjs_tracemonkey_with_annotations.md", "text/markdown; charset=utf-8"],
    ]);
    const markdown = outputs[0]?.bytes.toString("utf8") ?? "";
    expect(markdown).toMatch(/^# Trace-based Just-in-Time Type Specialization for Dynamic Languages\n/);
    expect(markdown).toMatch(/^## Abstract$/m);
    expect(markdown).toMatch(/^## 1\. Introduction$/m);
    expect(markdown).toMatch(/^### 3\.1 Traces$/m);
    // The first column ends mid-sentence above the copyright box; the second column goes on.
    expect(markdown).toContain("client-side web programming and is used for the application logic");
    // Running page numbers are gone: outside the code listings (numbered lines), no line is a bare number.
    const prose = markdown.replace(/^```\n[\s\S]*?\n```$/gm, "");
    expect(prose).toContain("## 2. Overview: Example Tracing Run");
    expect(prose.split("\n").filter((line) => /^\d{1,2}$/.test(line.trim()))).toEqual([]);
  });

  it("writes JSON that the OpenAPI document describes: blocks in reading order with pages, boxes and levels", async () => {
    const document = await jsonOf(tracemonkey);
    expect(document.pageCount).toBe(14);
    expect(document.pages).toEqual(Array.from({ length: 14 }, (_, index) => index + 1));
    const headings = document.elements.filter((element) => element.type === "heading");
    expect(headings[0]).toMatchObject({ page: 1, level: 1, text: expect.stringMatching(/^Trace-based/) });
    expect(headings.map((heading) => heading.text)).toContain("7. Evaluation");
    const pages = document.elements.map((element) => element.page);
    expect(pages).toEqual([...pages].sort((a, b) => a - b));
    for (const element of document.elements) {
      const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = element.bbox;
      expect(x0 <= x1 && y0 <= y1 && x0 >= 0 && y1 <= 800, JSON.stringify(element)).toBe(true);
    }
    expect(document.elements.some((element) => element.type === "figure")).toBe(true);
    expect(document.elements.some((element) => element.type === "table")).toBe(true);
  });

  it("writes plain text: blocks in reading order, a blank line between them, no Markdown", async () => {
    const { job, outputs } = await convert(outlined, { format: "text" });
    expect(job.status, job.message).toBe("done");
    expect(outputs[0]).toMatchObject({
      name: "samplefiles_pdflatex-outline.txt",
      contentType: "text/plain; charset=utf-8",
    });
    const text = outputs[0]?.bytes.toString("utf8") ?? "";
    expect(text).toMatch(/^Contents\n\n/);
    // The section's number, set apart from its title, is part of the heading.
    expect(text).toMatch(/\n\n1 Foo\n\nHello, here is some text without a meaning\./);
    expect(text).not.toMatch(/^#|\| --- \|/m);
  });
});

describe("options", () => {
  it("pages converts only those pages, and a page beyond the document fails with invalid_input", async () => {
    const document = await jsonOf(tracemonkey, { pages: "2-3, 14" });
    expect(document.pages).toEqual([2, 3, 14]);
    expect([...new Set(document.elements.map((element) => element.page))]).toEqual([2, 3, 14]);
    const { job } = await convert(outlined, { pages: "3-9" });
    expect(job).toMatchObject({ status: "failed", error: "invalid_input" });
    expect(job.message).toMatch(/outside .*4 pages/);
  });

  it("images: none leaves figures out, placeholder marks them, files writes PNGs linked by name", async () => {
    const none = await markdownOf(illustrated, { images: "none", pages: "1" });
    expect(none).not.toMatch(/<!-- image -->|!\[/);
    const placeholder = await markdownOf(illustrated, { pages: "1" });
    expect(placeholder).toContain("<!-- image -->");
    const { job, outputs } = await convert(illustrated, { images: "files", pages: "1-3" });
    expect(job.status, job.message).toBe("done");
    const [document, ...figures] = outputs;
    expect(figures.length).toBeGreaterThan(0);
    const markdown = document?.bytes.toString("utf8") ?? "";
    for (const [index, figure] of figures.entries()) {
      expect(figure.name).toBe(`docling_redp5110_sampled-figure-${index + 1}.png`);
      expect(figure.contentType).toBe("image/png");
      expect(figure.bytes.subarray(0, 8).toString("latin1")).toBe("\u0089PNG\r\n\u001a\n");
      expect(markdown).toContain(`](${figure.name})`);
    }
  });

  it("pageBreaks marks each page: a comment in Markdown, a form feed between pages in text", async () => {
    const markdown = await markdownOf(outlined, { pageBreaks: true });
    expect(markdown.match(/<!-- page \d+ -->/g)).toEqual([1, 2, 3, 4].map((page) => `<!-- page ${page} -->`));
    const text = await markdownOf(outlined, { pageBreaks: true, format: "text" });
    expect(text.split("\f")).toHaveLength(4);
    expect(await markdownOf(outlined)).not.toContain("<!-- page");
  });

  it("headersFooters: drop leaves running heads and page numbers out, keep writes them as header and footer blocks", async () => {
    const kept = await jsonOf(illustrated, { headersFooters: "keep" });
    const running = kept.elements.filter((element) => element.type === "header" || element.type === "footer");
    expect(running.length).toBeGreaterThanOrEqual(3);
    const dropped = await jsonOf(illustrated);
    expect(
      dropped.elements.filter((element) => element.type === "header" || element.type === "footer"),
    ).toEqual([]);
    expect(dropped.elements.length).toBe(kept.elements.length - running.length);
  });

  it("keeps links: Markdown links where the text is, and in the JSON's links", async () => {
    const markdown = await markdownOf(linked);
    expect(markdown).toMatch(/\[[^\]]+\]\(http:\/\/eur-lex\.europa\.eu\/[^)\s]+\)/);
    const document = await jsonOf(linked);
    // A list's links are on its items.
    const links = document.elements.flatMap((element) => [
      ...(element.links ?? []),
      ...(element.items ?? []).flatMap((item) => item.links ?? []),
    ]);
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) expect(link.uri).toMatch(/^https?:\/\//);
  });

  it("chunking groups blocks under their headings, within the limit, never cutting a sentence", async () => {
    const document = await jsonOf(tracemonkey, { chunking: { maxCharacters: 1500 }, pages: "1-4" });
    const chunks = document.chunks ?? [];
    expect(chunks.length).toBeGreaterThan(5);
    // Every block is in a chunk, in order.
    expect([...new Set(chunks.flatMap((chunk) => chunk.elements))]).toEqual(
      document.elements.map((_, index) => index),
    );
    for (const chunk of chunks) {
      const single = chunk.text.split(/(?<=[.!?])\s/).length === 1;
      if (!single) expect(chunk.text.length, chunk.text.slice(0, 80)).toBeLessThanOrEqual(1500);
      expect(chunk.pages.first).toBeLessThanOrEqual(chunk.pages.last);
    }
    const introduction = chunks.find((chunk) =>
      chunk.text.includes("Dynamic languages such as JavaScript, Python"),
    );
    expect(introduction?.headings).toEqual([
      "Trace-based Just-in-Time Type Specialization for Dynamic Languages",
      "1. Introduction",
    ]);
    // In Markdown there are no chunks, and the job says so.
    const { job } = await convert(outlined, { chunking: { maxCharacters: 1000 } });
    expect(job.warnings?.join(" ")).toMatch(/chunking applies to format json only/);
  });

  it("refuses bad options with 400 invalid_options naming the option", async () => {
    for (const [options, name] of [
      [{ format: "html" }, "format"],
      [{ images: "inline" }, "images"],
      [{ chunking: { maxCharacters: 10 } }, "chunking"],
      [{ ocr: "sometimes" }, "ocr"],
      [{ languages: ["xx"] }, "languages"],
      [{ pages: "3-1" }, "pages"],
    ] as const) {
      const answer = await client.postFiles(path, [{ path: outlined }], options);
      expect(answer.status, JSON.stringify(options)).toBe(400);
      expect(answer.body).toMatchObject({ error: "invalid_options" });
      expect(JSON.stringify(answer.body), JSON.stringify(options)).toContain(name);
    }
  });
});

describe("scans and OCR", () => {
  it("ocr auto reads a scan's text; never leaves it empty; always OCRs a born-digital page too", async () => {
    const auto = await jsonOf(scan);
    expect(auto.ocrPages).toEqual([1]);
    expect(auto.elements.map((element) => element.text).join(" ")).toMatch(/quick brown dog jumped/i);
    const never = await jsonOf(scan, { ocr: "never" });
    expect(never.ocrPages).toEqual([]);
    expect(never.elements.filter((element) => element.type !== "figure")).toEqual([]);
    const { job, outputs } = await convert(outlined, { ocr: "always", pages: "2", format: "json" });
    expect(job.status, job.message).toBe("done");
    expect(job.warnings?.join(" ")).toMatch(/recognised by OCR \(Tesseract, English\) on every page/);
    const always = JSON.parse(outputs[0]?.bytes.toString("utf8") ?? "") as MarkdownJson;
    expect(always.ocrPages).toEqual([2]);
    expect(always.elements.map((element) => element.text).join(" ")).toMatch(/some text without a meaning/);
  });

  it("languages picks the OCR languages: German text keeps its umlauts", async () => {
    const markdown = await markdownOf(corpusPath("scanned/extractous_deu-ocr.pdf"), { languages: ["deu"] });
    expect(markdown).toMatch(/Südafrika und Ägypten/);
  });

  it("reads an Arabic scan in logical order (OCR text layers store right-to-left words as seen)", async () => {
    const markdown = await markdownOf(corpusPath("scanned/extractous_ara-ocr.pdf"), { languages: ["ara"] });
    // The ground truth's first line (extractous_ara-ocr.pdf.txt): the heading, then its first sentence.
    expect(markdown).toContain("الدراسة والتكوين");
    expect(markdown).toContain("تلقى الأمير عبد القادر دروسه الأولى");
  });

  it("runs as a pipeline step after OCR", async () => {
    const steps = [{ operation: "ocr", options: { languages: ["eng"] } }, { operation: "pdf-to-markdown" }];
    const created = await client.postFiles("/v1/pipeline", [{ path: scan }], undefined, {
      steps: JSON.stringify(steps),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({ credits: 5 });
    const job = await client.waitForJob(String(created.body.id), 300_000);
    expect(job.status, job.message).toBe("done");
    expect(job.steps?.map((step) => [step.operation, step.status])).toEqual([
      ["ocr", "done"],
      ["pdf-to-markdown", "done"],
    ]);
    const [output] = await downloads(job);
    expect(output?.name).toBe("tesseract_phototest.md");
    expect(output?.bytes.toString("utf8")).toMatch(/quick brown dog jumped/i);
  });
});

describe("a Word document through Word to PDF", () => {
  it("reads a table ruled all over as one table across its pages, each wrapped row whole", async () => {
    const steps = [{ operation: "word-to-pdf" }, { operation: "pdf-to-markdown" }];
    const created = await client.postFiles(
      "/v1/pipeline",
      [{ path: corpusPath("office/docling_docx_rich_tables_01.docx") }],
      undefined,
      { steps: JSON.stringify(steps) },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(String(created.body.id), 300_000);
    expect(job.status, job.message).toBe("done");
    const markdown = (await downloads(job))[0]?.bytes.toString("utf8") ?? "";
    // Two tables (Phase 1 over four pages, Phase 2 over two), as pandoc reads the .docx: not a table per
    // page, each under a header that is the page's first row.
    expect(markdown.match(/^\| --- \| --- \| --- \|$/gm)).toHaveLength(2);
    expect(markdown.match(/^\| Feature \| Action Needed \| Comment\/Links \|$/gm)).toHaveLength(2);
    // Its second and third cells wrap onto five lines each: still one row.
    expect(markdown).toMatch(
      /^\| Market \/ Design Motivation \| Remove the Motivation clause and all comparisons criticizing Markdown, HTML, LaTeX, PageXML, ALTO XML, hOCR, or similar technologies\. \| ISO standards shall remain technologically neutral/m,
    );
  });
});

describe("a 500-page document", () => {
  it("converts every page, none dropped", async () => {
    // The 4-page outline sample 125 times: 500 pages of headings, paragraphs and a contents table.
    const file = join(scratch.path, "five-hundred.pdf");
    execFileSync("qpdf", ["--empty", "--pages", ...Array.from({ length: 125 }, () => outlined), "--", file]);
    const { job, outputs } = await convert(file, { pageBreaks: true }, 900_000);
    expect(job.status, job.message).toBe("done");
    const markdown = outputs[0]?.bytes.toString("utf8") ?? "";
    expect(markdown.match(/<!-- page \d+ -->/g)).toHaveLength(500);
    expect(markdown.match(/^# \d Foo$/gm)?.length).toBe(125 * 3);
    // Each copy's text is all there: 125 times what the 4-page file gives.
    const phrase = /Hello, here is some text without a meaning/g;
    const once = (await markdownOf(outlined)).match(phrase)?.length ?? 0;
    expect(once).toBeGreaterThan(5);
    expect(markdown.match(phrase)?.length).toBe(125 * once);
  });
});
