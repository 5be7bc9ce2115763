import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";
import { uploadUntilAnswered } from "../support/uploads.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");

describe("plans: file size, credits and rate limits", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ database: "sqlite", redis: "supervised" });
  });
  afterAll(async () => stack?.close());

  it("answers 413 too_large as soon as a file passes the plan's size, without reading the rest", async () => {
    const { apiKey } = await stack.createAccount("free");
    const total = 200 * 1024 * 1024;
    const answer = await uploadUntilAnswered(`${stack.baseUrl}/v1/rotate`, apiKey, total);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: "too_large",
      detail: expect.stringContaining("10 MB"),
    });
    // 10 MB limit: the answer came well before the 200 MB were sent (socket buffers allow a little more).
    expect(answer.sent).toBeLessThan(40 * 1024 * 1024);
    // Nothing of the refused upload stays in storage.
    const stored = await kyselyOf(stack.runtime.database).selectFrom("job_files").select("id").execute();
    expect(stored).toEqual([]);
  });

  it("counts every authenticated request per account and minute, with RateLimit headers and Retry-After", async () => {
    const { apiKey } = await stack.createAccount("free");
    const client = new Client(stack.baseUrl, apiKey);
    // Requests with a wrong key are not counted against anyone.
    for (let i = 0; i < 3; i += 1)
      expect((await new Client(stack.baseUrl, `svc_live_${"b".repeat(43)}`).get("/v1/account")).status).toBe(
        401,
      );
    for (let i = 1; i <= 10; i += 1) {
      const answer = await client.get("/v1/account");
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-policy")).toBe('"per-minute";q=10;w=60');
      expect(answer.headers.get("ratelimit")).toMatch(new RegExp(`^"per-minute";r=${10 - i};t=\\d+$`));
    }
    const limited = await client.get("/v1/jobs/00000000-0000-4000-8000-000000000000");
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: "rate_limited" });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("ratelimit")).toMatch(/^"per-minute";r=0;t=\d+$/);
    // Another account has its own budget.
    const other = new Client(stack.baseUrl, (await stack.createAccount("free")).apiKey);
    expect((await other.get("/v1/account")).status).toBe(200);
  });

  it("refuses a Free job the month's credits cannot cover, and lets paid plans run into overage", async () => {
    const free = await stack.createAccount("free");
    await stack.runtime.accounts.adjustCredits(free.accountId, -100, "test: use up the month");
    const refused = await new Client(stack.baseUrl, free.apiKey).postFiles("/v1/rotate", [{ path: pdf }]);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe("quota_exceeded");

    const starter = await stack.createAccount("starter");
    await stack.runtime.accounts.adjustCredits(starter.accountId, -2_499, "test: one credit left");
    const client = new Client(stack.baseUrl, starter.apiKey);
    for (let i = 0; i < 3; i += 1) {
      const created = await client.postFiles("/v1/rotate", [{ path: pdf }]);
      expect(created.status).toBe(202);
      expect((await client.waitForJob(created.body.id as string)).status).toBe("done");
    }
    expect((await client.get("/v1/account")).body).toMatchObject({
      plan: "starter",
      creditsIncluded: 1,
      creditsUsed: 3,
      creditsRemaining: 0,
      overageCredits: 2,
      overageCostUsd: 0.02,
    });
  });
});
