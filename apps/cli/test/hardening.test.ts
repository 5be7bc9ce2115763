import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contentBombPdf,
  corpusPath,
  createTempDir,
  deepPageTreePdf,
  entityBombDocx,
  garbageImagePdf,
  garbageStreamPdf,
  hugeImagePdf,
  loopingPageTreePdf,
  manyObjectsPdf,
  manyPagesPdf,
  nestedFormsPdf,
  plainDocx,
  zipBombDocx,
} from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

/**
 * The standing hardening suite: every hostile generator through every operation that takes it, on the
 * real service, with a loopback canary that hostile pages and documents point at. Every job must end
 * done or failed with a code that says what is wrong with the input, in plain words, and the canary
 * must see nothing. The fault scenarios are in faults.test.ts and cluster-faults.test.ts; the load run
 * is `node bench/load.mjs`.
 */
/** examples/README.md: a signer made for the examples, password "example". */
const exampleSigner = {
  path: fileURLToPath(new URL("../../../examples/sample-signer.p12", import.meta.url)),
  field: "certificate",
};

const pdfOperations: [string, unknown, ...{ path: string; field: string }[]][] = [
  ["/v1/split", undefined],
  ["/v1/rotate", { angle: 90 }],
  ["/v1/compress", undefined],
  ["/v1/repair", undefined],
  ["/v1/ocr", undefined],
  ["/v1/protect", { userPassword: "secret" }],
  ["/v1/unlock", { password: "" }],
  ["/v1/convert/pdf-to-word", undefined],
  ["/v1/convert/pdf-to-powerpoint", undefined],
  ["/v1/convert/pdf-to-excel", undefined],
  ["/v1/convert/pdf-to-markdown", undefined],
  ["/v1/redact", { text: ["secret"], presets: ["email", "card"] }],
  ["/v1/convert/pdf-to-pdfa", undefined],
  ["/v1/sign", { certificatePassword: "example" }, exampleSigner],
  ["/v1/verify-signatures", undefined],
];
/** Codes that say what is wrong with the input (no_tables: PDF to Excel found none, as it should). */
const inputCodes = ["invalid_input", "conversion_failed", "timeout", "no_tables"];

/** The generated PDFs, and the code and message every operation must give where it is refused up front. */
const hostilePdfs: { name: string; make: () => Buffer; refused?: RegExp }[] = [
  { name: "pages.pdf", make: () => manyPagesPdf(200_000), refused: /more than 20,000 pages/ },
  { name: "objects.pdf", make: () => manyObjectsPdf(1_000_000), refused: /more than 1,000,000 objects/ },
  { name: "image.pdf", make: () => hugeImagePdf(100_000, 100_000), refused: /images larger than 1 GB/ },
  { name: "inflates.pdf", make: () => contentBombPdf(2 * 1024 ** 3), refused: /a decompression bomb/ },
  { name: "deep.pdf", make: () => deepPageTreePdf(5_000) },
  { name: "looping.pdf", make: () => loopingPageTreePdf() },
  { name: "garbage.pdf", make: () => garbageStreamPdf(100_000) },
  { name: "jpx.pdf", make: () => garbageImagePdf("JPXDecode") },
  { name: "nested.pdf", make: () => nestedFormsPdf(60) },
];

let files: Awaited<ReturnType<typeof createTempDir>>;
let canary: LocalServer;
let stack: Stack;
let client: Client;

beforeAll(async () => {
  files = await createTempDir("octavo-hardening-");
  canary = await startLocalServer((_req, res) => res.end("canary"));
  stack = await startStack({
    database: "sqlite",
    redis: "supervised",
    // Short, so that a file that hangs an engine ends the test soon; long enough for LibreOffice to start
    // and convert a small document while the rest of the suite loads both cores (19 s seen on a slow host).
    env: { OCTAVO_JOB_TIMEOUT_SECONDS: "40" },
  });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
});
afterAll(async () => {
  await stack?.close();
  await canary?.close();
  await files?.dispose();
});

function write(name: string, bytes: Buffer | string): string {
  const path = join(files.path, name);
  writeFileSync(path, bytes);
  return path;
}

async function run(
  operation: string,
  path: string,
  options?: unknown,
  ...named: { path: string; field: string }[]
): Promise<JobBody> {
  const created = await client.postFiles(operation, [{ path }, ...named], options);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return client.waitForJob(created.body.id as string, 180_000);
}

/** Done, or failed with an input code and a message in plain words (no exception class names). */
function expectSettledForItsInput(job: JobBody, what: string): void {
  expect(["done", "failed"], what).toContain(job.status);
  if (job.status === "failed") {
    expect(inputCodes, `${what}: ${job.message}`).toContain(job.error);
    expect(job.message, what).not.toMatch(/\b[A-Z]\w*(Error|Exception)\b|\bat \w+ \(/);
  }
}

describe("hostile PDFs through every PDF operation", () => {
  it.each(hostilePdfs)(
    "$name",
    async ({ name, make, refused }) => {
      const path = write(name, make());
      for (const [operation, options, ...named] of pdfOperations) {
        const job = await run(operation, path, options, ...named);
        const what = `${name} on ${operation}`;
        expectSettledForItsInput(job, what);
        if (refused !== undefined) {
          expect(job, what).toMatchObject({ status: "failed", error: "invalid_input" });
          expect(job.message, what).toMatch(refused);
        }
      }
    },
    600_000,
  );
});

describe("hostile documents and pages", () => {
  it("refuses Word bombs: ZIP and entity expansion", async () => {
    const zip = await run("/v1/convert/word-to-pdf", write("zip-bomb.docx", zipBombDocx(1024 ** 3)));
    expect(zip).toMatchObject({ status: "failed", error: "invalid_input" });
    expect(zip.message).toMatch(/a ZIP bomb, not a document/);
    const laughs = await run("/v1/convert/word-to-pdf", write("laughs.docx", entityBombDocx()));
    expect(laughs).toMatchObject({ status: "failed", error: "invalid_input" });
  }, 300_000);

  it("warns when a document converts to nothing visible", async () => {
    const empty = await run("/v1/convert/word-to-pdf", write("empty.docx", plainDocx("")));
    expect(empty.status).toBe("done");
    expect(empty.warnings).toEqual([
      expect.stringMatching(/^empty\.docx converted to a PDF with nothing visible/),
    ]);
  });

  it.each([
    ["loops forever", "<p>Looping</p><script>for (;;) {}</script>"],
    ["eats memory", "<script>const all = []; for (;;) all.push(new Array(1e7).fill(1));</script>"],
    [
      "floods frames",
      `<script>for (let i = 0; i < 5000; i += 1) document.body.appendChild(document.createElement("iframe"));</script>`,
    ],
    ["prints forever", `<script>document.body.innerHTML = "<p>x</p>".repeat(2000000);</script>`],
  ])(
    "an HTML page that %s ends for its input",
    async (what, body) => {
      const job = await run(
        "/v1/convert/html-to-pdf",
        write("page.html", `<html><body>${body}</body></html>`),
      );
      expectSettledForItsInput(job, what);
    },
    300_000,
  );

  it("lets nothing reach the loopback canary from a page or a page URL", async () => {
    const at = (host: string, path: string) => `http://${host}:${canary.port}${path}`;
    const page = `<html><body>
      <img src="${at("127.0.0.1", "/img")}"><iframe src="${at("localhost", "/frame")}"></iframe>
      <link rel="stylesheet" href="${at("[::1]", "/css")}"><video src="${at("0.0.0.0", "/video")}"></video>
      <script>fetch("${at("127.0.0.1", "/fetch")}").catch(() => {});
        new WebSocket("${at("127.0.0.1", "/ws").replace("http", "ws")}");
        location.href = "${at("127.0.0.1", "/navigate")}";</script></body></html>`;
    const rendered = await run("/v1/convert/html-to-pdf", write("ssrf.html", page));
    expectSettledForItsInput(rendered, "ssrf.html");
    for (const host of ["127.0.0.1", "localhost", "[::1]"]) {
      const byUrl = await client.postJson("/v1/convert/html-to-pdf", {
        options: { url: at(host, "/direct") },
      });
      expect(byUrl, host).toMatchObject({ status: 400, body: { error: "blocked_url" } });
    }
    expect(canary.requests).toEqual([]);
  }, 300_000);

  it("still runs an ordinary job once the hostile ones are done", async () => {
    const job = await run("/v1/rotate", corpusPath("general/samplefiles_pdflatex-outline.pdf"), {
      angle: 90,
    });
    expect(job.status).toBe("done");
  });
});
