import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { kyselyOf } from "@octavo/db/repositories";
import { waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { type LocalServer, startLocalServer } from "../support/servers.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = fileURLToPath(new URL("../../../../examples/sample-a.pdf", import.meta.url));

/**
 * Test-mode keys (svc_test_…) through the real API and workers: one account's live and test keys each
 * see their own mode's jobs only, on every job route; a test job is never charged, even on a Free
 * account with no credits left; webhooks say which mode a job ran in.
 */
describe("test-mode keys", () => {
  let stack: Stack;
  let receiver: LocalServer;
  let live: Client;
  let test: Client;

  /** A new account's live key (made with it) and a test key. */
  const liveAndTest = async (plan: "business" | "free") => {
    const account = await stack.createAccount(plan);
    const key = await stack.runtime.accounts.createKey(account.accountId, "integration tests", "test");
    expect(key).toMatchObject({ mode: "test", prefix: expect.stringMatching(/^svc_test_/) });
    expect(key.apiKey).toMatch(/^svc_test_[0-9A-Za-z]{43}$/);
    return {
      accountId: account.accountId,
      live: new Client(stack.baseUrl, account.apiKey),
      test: new Client(stack.baseUrl, key.apiKey),
    };
  };

  const rotate = async (as: Client, extra: Record<string, string> = {}) => {
    const created = await as.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 }, extra);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    return as.waitForJob(String(created.body.id));
  };
  const ids = async (as: Client) =>
    ((await as.get("/v1/jobs?limit=100")).body.data as JobBody[]).map((job) => job.id);

  beforeAll(async () => {
    receiver = await startLocalServer((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
    });
    ({ live, test } = await liveAndTest("business"));
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it("keeps test and live jobs apart on every job route, both ways", async () => {
    const liveJob = await rotate(live);
    const testJob = await rotate(test);
    expect([liveJob.livemode, testJob.livemode]).toEqual([true, false]);
    for (const [own, other, theirs] of [
      [live, test, liveJob],
      [test, live, testJob],
    ] as const) {
      // The job, its list, its cancel and its delete answer the other mode's key as an unknown job does.
      expect((await other.get(`/v1/jobs/${theirs.id}`)).status).toBe(404);
      expect(await ids(other)).not.toContain(theirs.id);
      expect(await ids(own)).toContain(theirs.id);
      expect((await other.send("POST", `/v1/jobs/${theirs.id}/cancel`)).status).toBe(404);
      expect((await other.send("DELETE", `/v1/jobs/${theirs.id}`)).status).toBe(404);
      // Nothing changed: the owner still reads the job, and downloads its output.
      const after = (await own.get(`/v1/jobs/${theirs.id}`)).body as unknown as JobBody;
      expect(after).toMatchObject({ status: "done", livemode: theirs.livemode });
      expect((await own.download(after.outputs?.[0]?.url ?? "")).status).toBe(200);
    }
  });

  it("scopes an Idempotency-Key to its mode: the same key makes one job per mode", async () => {
    // The test client sends no Idempotency-Key: the request as a client library would send it.
    const post = async (as: Client) => {
      const form = new FormData();
      form.append("file", new Blob([await readFile(pdf)]), "a.pdf");
      form.append("options", JSON.stringify({ angle: 180 }));
      const response = await fetch(`${stack.baseUrl}/v1/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${as.apiKey}`, "idempotency-key": "same-key-both-modes" },
        body: form,
      });
      expect(response.status).toBe(202);
      const { id } = (await response.json()) as { id: string };
      return { id, replayed: response.headers.has("idempotent-replayed") };
    };
    const first = await post(live);
    const other = await post(test);
    expect(other.replayed).toBe(false);
    expect(other.id).not.toBe(first.id);
    // Within one mode the key still replays.
    expect(await post(test)).toEqual({ id: other.id, replayed: true });
    expect((await test.waitForJob(other.id)).livemode).toBe(false);
    await live.waitForJob(first.id);
  });

  it("never charges a test job, even on a Free account with no credits left", async () => {
    const free = await liveAndTest("free");
    const spent = (await free.live.get("/v1/account")).body;
    await stack.runtime.accounts.adjustCredits(free.accountId, -Number(spent.creditsRemaining), "spent");
    const before = (await free.live.get("/v1/account")).body;
    // The live key is refused for want of credits; the test key runs the job.
    const refused = await free.live.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
    expect(refused.status).toBe(402);
    const job = await rotate(free.test);
    expect(job).toMatchObject({ status: "done", livemode: false, credits: 1 });
    const ledger = await kyselyOf(stack.runtime.database)
      .selectFrom("credit_ledger")
      .selectAll()
      .where("job_id", "=", job.id)
      .execute();
    expect(ledger).toEqual([]);
    const after = (await free.test.get("/v1/account")).body;
    expect(after).toMatchObject({ creditsUsed: before.creditsUsed, creditsReserved: 0, creditsRemaining: 0 });
  });

  it("takes at most 20 jobs a minute from an account's test keys, and none from its live keys' share", async () => {
    const account = await liveAndTest("business");
    const post = (as: Client) => as.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
    const accepted = await Promise.all(Array.from({ length: 20 }, () => post(account.test)));
    expect(accepted.map((created) => created.status)).toEqual(Array(20).fill(202));
    const refused = await post(account.test);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: "rate_limited",
      message: "Test mode allows 20 jobs a minute per account.",
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The account's live key is not held back by its test keys' jobs.
    expect((await post(account.live)).status).toBe(202);
    for (const created of accepted) await account.test.waitForJob(String(created.body.id));
  });

  it("says in each webhook whether the job ran in live or test mode", async () => {
    const hook = (path: string) => ({ webhook_url: `${receiver.url}${path}` });
    const liveJob = await rotate(live, hook("/live"));
    const testJob = await rotate(test, hook("/test"));
    for (const [path, job, livemode] of [
      ["/live", liveJob, true],
      ["/test", testJob, false],
    ] as const) {
      const delivery = await waitFor(`the ${path} webhook`, () =>
        receiver.requests.find((request) => request.url === path),
      );
      expect(JSON.parse(delivery.body)).toMatchObject({ id: job.id, livemode });
    }
  });
});
