import { readdir } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { corpusPath, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";

/*
 * Multipart bodies no HTTP client library would send, written to a raw socket: each must be answered
 * 400 with the spec's error body at once, and leave nothing in storage. The stack's idle cut-off is 2 s
 * (OCTAVO_REQUEST_IDLE_SECONDS) so the stalled-body case is quick; no job ever runs, so no workers.
 */
const IDLE_SECONDS = 2;

let stack: Stack;
let apiKey: string;
beforeAll(async () => {
  stack = await startStack({
    database: "sqlite",
    redis: "supervised",
    workers: false,
    env: { OCTAVO_REQUEST_IDLE_SECONDS: String(IDLE_SECONDS) },
  });
  apiKey = (await stack.createAccount("business")).apiKey;
});
afterAll(async () => stack?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Milliseconds from the last byte sent to the end of the answer. */
  afterLastByteMs: number;
  /** Whether the server closed the connection after answering. */
  closed: Promise<boolean>;
}

/**
 * Writes `head` and `body` to the API's port as they are (Content-Length as given) and reads one answer.
 * The deadline only catches a request left unanswered.
 */
function rawPost(
  path: string,
  headers: Record<string, string>,
  body: string,
  deadlineMs = 20_000,
): Promise<RawAnswer> {
  const port = Number(new URL(stack.baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1");
    const closed = new Promise<boolean>((done) => socket.once("close", () => done(true)));
    let received = Buffer.alloc(0);
    let lastByteSent = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to POST ${path} within ${deadlineMs} ms`));
    }, deadlineMs);
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const split = received.indexOf("\r\n\r\n");
      if (split < 0) return;
      const [statusLine = "", ...lines] = received.subarray(0, split).toString("latin1").split("\r\n");
      const answerHeaders = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(":");
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const length = Number(answerHeaders["content-length"] ?? Number.NaN);
      const answerBody = received.subarray(split + 4);
      if (!(answerBody.length >= length)) return;
      clearTimeout(timer);
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers: answerHeaders,
        body: JSON.parse(answerBody.subarray(0, length).toString("utf8")) as Record<string, unknown>,
        afterLastByteMs: performance.now() - lastByteSent,
        closed: Promise.race([closed, new Promise<boolean>((done) => setTimeout(() => done(false), 10_000))]),
      });
    });
    socket.once("connect", () => {
      const allHeaders = {
        host: "127.0.0.1",
        authorization: `Bearer ${apiKey}`,
        "content-length": String(Buffer.byteLength(body)),
        ...headers,
      };
      const head = `POST ${path} HTTP/1.1\r\n${Object.entries(allHeaders)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("")}\r\n`;
      socket.write(head + body, () => {
        lastByteSent = performance.now();
      });
    });
  });
}

/** Every file under the stack's storage/jobs, in any folder (a .partial upload included). */
async function storedJobFiles(): Promise<string[]> {
  const root = join(stack.config.dataDir, "storage", "jobs");
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

const multipart = (boundary: string) => ({ "content-type": `multipart/form-data; boundary=${boundary}` });

describe("malformed multipart bodies are answered 400 at once, and leave nothing stored", () => {
  it.each([
    {
      what: "a multipart Content-Type without a boundary",
      headers: { "content-type": "multipart/form-data" },
      body: "xx",
      message: /has no boundary/,
    },
    {
      what: "a garbage body",
      headers: multipart("XYZ"),
      body: "this is not a form at all",
      message: /ended before its closing boundary/,
    },
    {
      what: "a text field cut off before the end",
      headers: multipart("XYZ"),
      body: '--XYZ\r\nContent-Disposition: form-data; name="options"\r\n\r\n{"angle": 9',
      message: /ended before its closing boundary/,
    },
    {
      what: "a part whose header is malformed",
      headers: multipart("XYZ"),
      body: `--XYZ\r\n${"x".repeat(20_000)}\r\n\r\nbody\r\n--XYZ--\r\n`,
      message: /malformed header/,
    },
    {
      what: "a file part cut off before its closing boundary (Content-Length correct)",
      headers: multipart("XYZ"),
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 trunc',
      message: /ended before its closing boundary/,
    },
  ])("$what", async ({ headers, body, message }) => {
    const answer = await rawPost("/v1/rotate", headers, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request", message: expect.stringMatching(message) });
    expect(String(answer.body.detail).length).toBeGreaterThan(20);
    // (The idle cut-off would answer "stopped arriving": the message shows the body's end was the answer.)
    expect(await storedJobFiles()).toEqual([]);
  });
});

describe(`a body that stops arriving is cut off after OCTAVO_REQUEST_IDLE_SECONDS (${IDLE_SECONDS} s here)`, () => {
  it("answers 400, closes the connection and removes the partial upload", async () => {
    const sent =
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 stalls';
    // Content-Length promises a megabyte more than is ever sent.
    const answer = await rawPost(
      "/v1/rotate",
      { ...multipart("XYZ"), "content-length": String(sent.length + 1024 ** 2) },
      sent,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: "invalid_request",
      message: "The request body stopped arriving.",
    });
    expect(String(answer.body.detail)).toContain(`${IDLE_SECONDS} s`);
    expect(answer.headers.connection).toBe("close");
    // Not before the idle time: the cut-off is the server's doing, and it waited as long as it says.
    expect(answer.afterLastByteMs).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000 - 100);
    expect(await answer.closed).toBe(true);
    await waitFor("the partial upload to be removed", async () =>
      (await storedJobFiles()).length === 0 ? true : undefined,
    );
  });
});

describe("requests without a body are never idle", () => {
  it(`a GET that waits longer than OCTAVO_REQUEST_IDLE_SECONDS (${IDLE_SECONDS} s here) is answered as usual`, async () => {
    // A job that stays queued: this stack has no workers.
    const client = new Client(stack.baseUrl, apiKey);
    const created = await client.postFiles("/v1/rotate", [
      { path: corpusPath("general/cabinet_text_only_pdfa1b.pdf") },
    ]);
    expect(created.status).toBe(202);
    const started = performance.now();
    const waited = await client.get(`/v1/jobs/${String(created.body.id)}?wait=${IDLE_SECONDS * 2}`);
    expect(waited.status).toBe(200);
    expect(waited.body.status).toBe("queued");
    // It waited its full time, past the idle time, in silence.
    expect(performance.now() - started).toBeGreaterThanOrEqual(IDLE_SECONDS * 2 * 1000 - 100);
  });
});
