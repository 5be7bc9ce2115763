import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type LocalServer, startLocalServer } from "../support/servers.js";
import { type Stack, startStack } from "../support/stack.js";
import { uploadUntilAnswered } from "../support/uploads.js";

// One request per row of the spec's Errors table, each answered with its HTTP status and the error
// body {error, message, detail}. The other contract files test each rule in depth; 503 unavailable needs a
// backing service down or a queue full, so it has its own file (unavailable.test.ts).
const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");

describe("every row of the spec's Errors table", () => {
  let stack: Stack;
  let files: LocalServer;
  let business: Client;
  let free: Client;

  beforeAll(async () => {
    files = await startLocalServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    // Every row is an answer to a request: no job needs to run, so no workers (they would run the
    // accepted ones for nothing).
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      workers: false,
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${files.port}` },
    });
    business = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    free = new Client(stack.baseUrl, (await stack.createAccount("free")).apiKey);
  });
  afterAll(async () => {
    await stack?.close();
    await files?.close();
  });

  it("answers each condition with its status and code", async () => {
    const rows: [
      status: number,
      code: string,
      answer: () => Promise<{ status: number; body: Record<string, unknown> }>,
    ][] = [
      [400, "invalid_input", () => business.postFiles("/v1/merge", [{ path: pdf }])],
      [400, "invalid_options", () => business.postFiles("/v1/rotate", [{ path: pdf }], { angle: 1 })],
      [
        400,
        "blocked_url",
        () => business.postJson("/v1/rotate", { url: "http://169.254.169.254/latest/meta-data" }),
      ],
      [400, "unreachable_url", () => business.postJson("/v1/rotate", { url: `${files.url}/gone.pdf` })],
      [401, "missing_api_key", () => new Client(stack.baseUrl, undefined).get("/v1/account")],
      [401, "invalid_api_key", () => new Client(stack.baseUrl, "svc_live_nope").get("/v1/account")],
      [
        403,
        "webhooks_not_in_plan",
        () => free.postFiles("/v1/rotate", [{ path: pdf }], {}, { webhook_url: "https://example.com/h" }),
      ],
      [404, "not_found", () => business.get("/v1/jobs/7d0ce0a4-8d50-4b1e-9f3e-000000000000")],
    ];
    for (const [status, code, send] of rows) {
      const answer = await send();
      expect(answer.status, code).toBe(status);
      expect(answer.body, code).toMatchObject({
        error: code,
        message: expect.any(String),
        detail: expect.any(String),
      });
    }
  });

  it("answers 402 quota_exceeded, 413 too_large and 429 rate_limited on the Free plan", async () => {
    const account = await stack.createAccount("free");
    const client = new Client(stack.baseUrl, account.apiKey);
    const tooLarge = await uploadUntilAnswered(
      `${stack.baseUrl}/v1/rotate`,
      account.apiKey,
      30 * 1024 * 1024,
    );
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: "too_large" });

    await stack.runtime.accounts.adjustCredits(account.accountId, -100, "test: month used up");
    const quota = await client.postFiles("/v1/rotate", [{ path: pdf }]);
    expect(quota.status).toBe(402);
    expect(quota.body.error).toBe("quota_exceeded");

    let limited = await client.get("/v1/account");
    for (let i = 0; i < 12 && limited.status !== 429; i += 1) limited = await client.get("/v1/account");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("takes exactly one page for HTML to PDF: a file or options.url", async () => {
    const html = { path: corpusPath("general/samplefiles_pdflatex-outline.pdf"), name: "page.html" };
    const both = await business.postFiles("/v1/convert/html-to-pdf", [html], { url: "https://example.com/" });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      error: "invalid_input",
      detail: "files: exactly one of a .html/.htm file or options.url",
    });
    const neither = await business.postJson("/v1/convert/html-to-pdf", { options: {} });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toBe("invalid_input");
  });
});
