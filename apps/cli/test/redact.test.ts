import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

/*
 * Redact PDF through the real API and workers: text and presets on a corpus form, an area, the refusals
 * of options that ask for nothing or hold a pattern RE2 cannot read, and pipelines (redact → compress,
 * ocr → redact on a scan). pdftotext, not the engine, judges what is left; the job and its webhook carry
 * counts, never the text removed. The engine's finer behaviour (Form XObjects, kerning, image pixels,
 * the outline, labels, SSIM outside the boxes) is tested in packages/redact/test/redact.test.ts.
 */

const path = "/v1/redact";
// One page: a park's application form with an email address twice and three US phone numbers.
const form = corpusPath("general/tika_testPDF_XFA_govdocs1_258578.pdf");
const scan = corpusPath("scanned/tesseract_phototest.pdf");
const sample = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url)); // one page of text

let stack: Stack;
let client: Client;
let receiver: LocalServer;
let scratch: Awaited<ReturnType<typeof createTempDir>>;

beforeAll(async () => {
  receiver = await startLocalServer((_req, res) => res.writeHead(204).end());
  stack = await startStack({
    database: "sqlite",
    redis: "supervised",
    // The webhook receiver is on loopback, a private address: allowed for this test only.
    env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
  });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  scratch = await createTempDir("octavo-redact-");
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await scratch?.dispose();
});

/** Posts one file, waits for the job and, when done, downloads its one output into the scratch dir. */
async function run(file: string, options: unknown, fields: Record<string, string> = {}) {
  const created = await client.postFiles(path, [{ path: file }], options, fields);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return finished(String(created.body.id));
}

async function finished(id: string): Promise<{ job: JobBody; output: string }> {
  const job = await client.waitForJob(id, 240_000);
  const output = join(scratch.path, `${job.id}.pdf`);
  if (job.status === "done") {
    const download = await client.download(String(job.outputs?.[0]?.url));
    expect(download.status).toBe(200);
    writeFileSync(output, download.bytes);
  }
  return { job, output };
}

const pdftotext = (pdf: string) =>
  execFileSync("pdftotext", ["-q", "-enc", "UTF-8", pdf, "-"], { encoding: "utf8" });

describe("text and presets on a corpus form", () => {
  const email = "marvin_achtenberg@nps.gov";
  const phones = ["574-2307", "574-3184"];
  let job: JobBody;
  let output: string;

  beforeAll(async () => {
    expect(pdftotext(form)).toContain(email);
    ({ job, output } = await run(
      form,
      { text: ["Achtenberg", "Mount Rushmore"], presets: ["email", "phone"] },
      { webhook_url: `${receiver.url}/hook` },
    ));
  });

  it("removes every target from the text and keeps the other words", () => {
    expect(job.status, job.message).toBe("done");
    expect(job).toMatchObject({ operation: "redact", credits: 2 });
    expect(job.outputs?.map((file) => [file.name, file.contentType])).toEqual([
      ["tika_testPDF_XFA_govdocs1_258578.pdf", "application/pdf"],
    ]);
    const text = pdftotext(output);
    for (const target of [email, "Achtenberg", "Rushmore", ...phones]) {
      expect(text.toLowerCase(), target).not.toContain(target.toLowerCase());
    }
    for (const kept of ["Keystone", "National Park Service", "Applications should be submitted", "Marvin"]) {
      expect(text, kept).toContain(kept);
    }
  });

  it("reports the counts per page and rule in the job, and no target in its JSON", () => {
    expect(job.redaction).toEqual({
      pages: [{ page: 1, matches: { "text[0]": 3, "text[1]": 2, email: 2, phone: 3 }, areas: 0 }],
      total: 10,
    });
    expect(JSON.stringify(job)).not.toMatch(/achtenberg|rushmore|nps\.gov|574-2307|574-3184/i);
  });

  it("sends the same job to the webhook, without the targets", async () => {
    const delivery = await waitFor("the webhook", () =>
      receiver.requests.find((request) => request.url === "/hook"),
    );
    const body = JSON.parse(delivery.body) as JobBody;
    expect(body).toMatchObject({ id: job.id, status: "done", redaction: job.redaction });
    expect(delivery.body).not.toMatch(/achtenberg|rushmore|nps\.gov|574-2307|574-3184/i);
  });
});

describe("areas", () => {
  it("clears a rectangle as the page is displayed, in the fill colour, and counts it", async () => {
    // The first line of the sample ("This is a test document. ...", y 73.7 to 84.5), not the second.
    const { job, output } = await run(sample, {
      areas: [{ page: 1, rect: [60, 68, 270, 22] }],
      fill: "#FF0000",
    });
    expect(job.status, job.message).toBe("done");
    expect(job.redaction).toEqual({ pages: [{ page: 1, matches: {}, areas: 1 }], total: 1 });
    const text = pdftotext(output);
    expect(text).not.toMatch(/test document|contains some text/);
    expect(text).toContain("Creative Commons CC0");
    // At 72 dpi a pixel is a point: the box's middle is the fill colour.
    const stem = join(scratch.path, "area");
    execFileSync("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-singlefile", output, stem]);
    const ppm = readFileSync(`${stem}.ppm`);
    const header = /^P6\s+(\d+)\s+\d+\s+255\s/.exec(ppm.subarray(0, 64).toString("latin1"));
    const at = (header?.[0].length ?? 0) + (79 * Number(header?.[1]) + 200) * 3;
    expect([...ppm.subarray(at, at + 3)]).toEqual([255, 0, 0]);
  });
});

describe("refusals", () => {
  it.each([
    [{}, /^options: nothing to redact; give at least one of text .*, patterns .*, presets .* or areas/],
    [{ text: [], presets: [], caseSensitive: true }, /^options: nothing to redact/],
    [
      { patterns: ["(?<=Mount )Rushmore"] },
      /^patterns\[0\]: is not a regular expression RE2 can read \(.+\); RE2 has no look-around/,
    ],
    [
      { text: ["ok"], patterns: ["fine", "(unclosed"] },
      /^patterns\[1\]: is not a regular expression RE2 can read/,
    ],
    [
      { areas: [{ page: 1, rect: [10, 10, 0, 20] }] },
      /^areas\[0\]\.rect: width and height must be greater than 0$/,
    ],
    [
      { areas: [{ page: 0, rect: [10, 10, 5, 20] }] },
      /^areas\[0\]\.page: must be an integer from 1 to 20000$/,
    ],
    [{ areas: [{ page: 1 }] }, /^areas\[0\]\.rect: is required$/],
    [{ presets: ["passport"] }, /^presets: must hold at most 7 of email, phone, iban, card, ssn, ipv4, ipv6/],
    [
      { text: ["  "] },
      /^text: must hold at most 100 strings of 1 to 200 characters, each with a character other/,
    ],
  ])("%j: 400 invalid_options, saying what to give", async (options, detail) => {
    const answer = await client.postFiles(path, [{ path: sample }], options);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toMatchObject({
      error: "invalid_options",
      message: "The options of Redact PDF are not valid.",
    });
    expect(String(answer.body.detail)).toMatch(detail);
  });

  it("refuses a pipeline whose redact step asks for nothing, naming the step", async () => {
    const steps = [{ operation: "rotate" }, { operation: "redact", options: { sanitize: false } }];
    const answer = await client.postFiles("/v1/pipeline", [{ path: sample }], undefined, {
      steps: JSON.stringify(steps),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_options" });
    expect(String(answer.body.detail)).toMatch(/^steps\[1\]\.options: nothing to redact/);
  });

  it("fails a scan's job with conversion_failed, saying to OCR it first", async () => {
    const { job } = await run(scan, { text: ["quick"] });
    expect(job).toMatchObject({ status: "failed", error: "conversion_failed" });
    expect(job.message).toMatch(/image without a text layer.*set options\.ocr/);
  });

  it("with ocr, a scan's words go from the new text layer and from the picture's pixels", async () => {
    const { job, output } = await run(scan, { text: ["quick brown"], ocr: true });
    expect(job.status, job.message).toBe("done");
    expect(job.redaction?.pages).toEqual([{ page: 1, matches: { "text[0]": expect.any(Number) }, areas: 0 }]);
    const text = pdftotext(output);
    expect(text).not.toMatch(/quick|brown/i);
    expect(text).toMatch(/lazy fox/);
    // Tesseract, reading the picture itself, finds the words in the input and not in the output.
    const picture = (pdf: string, prefix: string) => {
      execFileSync("pdfimages", ["-png", "-f", "1", "-l", "1", pdf, join(scratch.path, prefix)]);
      return execFileSync("tesseract", [join(scratch.path, `${prefix}-000.png`), "-", "--psm", "6"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    };
    expect(picture(scan, "scan-before")).toMatch(/quick brown/);
    const after = picture(output, "scan-after");
    expect(after).not.toMatch(/quick|brown/);
    expect(after).toMatch(/lazy fox/);
  });
});

describe("pipelines", () => {
  async function pipeline(file: string, steps: unknown[]) {
    const created = await client.postFiles("/v1/pipeline", [{ path: file }], undefined, {
      steps: JSON.stringify(steps),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    return { credits: created.body.credits, ...(await finished(String(created.body.id))) };
  }

  it("redact → compress: the compressed output holds no target", async () => {
    const { credits, job, output } = await pipeline(form, [
      { operation: "redact", options: { presets: ["email", "phone"] } },
      { operation: "compress" },
    ]);
    expect(credits).toBe(4);
    expect(job.status, job.message).toBe("done");
    expect(job.steps?.map((step) => [step.operation, step.status])).toEqual([
      ["redact", "done"],
      ["compress", "done"],
    ]);
    const text = pdftotext(output);
    expect(text).not.toMatch(/nps\.gov|574-2307|574-3184/);
    expect(text).toContain("Keystone");
  });

  it("ocr → redact on a scan: the words found by OCR are removed from the text layer", async () => {
    const { job, output } = await pipeline(scan, [
      { operation: "ocr", options: { languages: ["eng"] } },
      { operation: "redact", options: { text: ["quick brown"] } },
    ]);
    expect(job.status, job.message).toBe("done");
    const text = pdftotext(output);
    expect(text).not.toMatch(/quick|brown/i);
    expect(text).toMatch(/lazy fox/);
  });
});
