import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { pageCount } from "./support/pdf-checks.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

// Office and HTML to PDF through the API and the worker's warm LibreOffice and Chromium. The engines'
// own packages sweep the whole corpus; here each operation is exercised end to end.
describe("conversions to PDF through the API", () => {
  let stack: Stack;
  let client: Client;
  let site: LocalServer;
  let canary: LocalServer;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    canary = await startLocalServer((_req, res) => res.end("canary"));
    site = await startLocalServer((req, res) => {
      if (req.url === "/report.html") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end("<html><body><h1>Quarterly report</h1><p>Revenue grew in every region.</p></body></html>");
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    scratch = await createTempDir();
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await canary?.close();
    await scratch?.dispose();
  });

  async function convert(path: string, files: { path: string; name?: string }[], options?: unknown) {
    const created = await client.postFiles(path, files, options);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    return client.waitForJob(created.body.id as string, 180_000);
  }

  async function outputPages(url: string): Promise<number> {
    const { bytes } = await client.download(url);
    const path = join(scratch.path, `${Math.random().toString(36).slice(2)}.pdf`);
    writeFileSync(path, bytes);
    return pageCount(path);
  }

  it("converts Word documents, one PDF per input, named after it, in the order sent", async () => {
    const job = await convert("/v1/convert/word-to-pdf", [
      { path: corpusPath("office/tika_testWORD_various.docx") },
      { path: corpusPath("office/docling_text_document_01.odt") },
      { path: corpusPath("office/tika_testRTFVarious.rtf") },
      { path: corpusPath("office/tika_testTXT_win-1252.txt") },
    ]);
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.map((output) => output.name)).toEqual([
      "tika_testWORD_various.pdf",
      "docling_text_document_01.pdf",
      "tika_testRTFVarious.pdf",
      "tika_testTXT_win-1252.pdf",
    ]);
    for (const output of job.outputs ?? []) expect(await outputPages(output.url ?? "")).toBeGreaterThan(0);
  });

  it("converts spreadsheets and presentations", async () => {
    const sheets = await convert("/v1/convert/excel-to-pdf", [
      { path: corpusPath("office/docling_xlsx_01.xlsx") },
      { path: corpusPath("office/docling_csv-semicolon.csv") },
    ]);
    expect(sheets.status, sheets.message).toBe("done");
    expect(sheets.outputs).toHaveLength(2);
    const slides = await convert("/v1/convert/powerpoint-to-pdf", [
      { path: corpusPath("office/poi_with_japanese.pptx") },
    ]);
    expect(slides.status, slides.message).toBe("done");
    expect(await outputPages(slides.outputs?.[0]?.url ?? "")).toBeGreaterThan(0);
  });

  it("fails a password-protected document with a message saying so", async () => {
    const job = await convert("/v1/convert/word-to-pdf", [
      { path: corpusPath("office/tika_testWORD_protected_passtika.docx") },
    ]);
    expect(job.status).toBe("failed");
    expect(["conversion_failed", "invalid_input"]).toContain(job.error);
    expect(job.message).toMatch(/password/i);
  });

  it("renders an uploaded HTML file and a page given as options.url", async () => {
    const upload = await convert(
      "/v1/convert/html-to-pdf",
      [{ path: corpusPath("html/gotenberg_pages-12.html") }],
      { format: "Letter" },
    );
    expect(upload.status, upload.message).toBe("done");
    expect(upload.outputs?.[0]?.name).toBe("gotenberg_pages-12.pdf");
    expect(await outputPages(upload.outputs?.[0]?.url ?? "")).toBe(12);

    const created = await client.postJson("/v1/convert/html-to-pdf", {
      options: { url: `${site.url}/report.html`, landscape: true },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const page = await client.waitForJob(created.body.id as string);
    expect(page.status, page.message).toBe("done");
    expect(await outputPages(page.outputs?.[0]?.url ?? "")).toBe(1);
  });

  it("keeps an uploaded page away from private addresses and local files", async () => {
    const hostile = join(scratch.path, "hostile.html");
    writeFileSync(
      hostile,
      `<html><body><h1>Hello</h1>
        <img src="http://127.0.0.1:${canary.port}/img.png">
        <iframe src="http://localhost:${canary.port}/frame"></iframe>
        <iframe src="file:///etc/passwd"></iframe>
        <script>fetch("http://127.0.0.1:${canary.port}/fetch").catch(() => {});</script>
      </body></html>`,
    );
    const job = await convert("/v1/convert/html-to-pdf", [{ path: hostile }]);
    expect(job.status, job.message).toBe("done");
    const { bytes } = await client.download(job.outputs?.[0]?.url ?? "");
    const path = join(scratch.path, "hostile.pdf");
    writeFileSync(path, bytes);
    const text = execFileSync("pdftotext", [path, "-"], { encoding: "utf8" });
    expect(text).toContain("Hello");
    expect(text).not.toContain("root:x:0:0");
    expect(canary.requests).toEqual([]);
  });
});
