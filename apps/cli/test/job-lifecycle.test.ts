import { readFileSync } from "node:fs";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath, descendantsMatching, waitFor } from "@octavo/testing";
import { runJanitor } from "@octavo/worker";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { refuseConnections } from "./support/postgres-outage.js";
import { type Stack, startStack } from "./support/stack.js";

const small = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const scan = corpusPath("scanned/ocrmypdf_linn.pdf");

describe("the job lifecycle", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("kills a job that passes the timeout, with its whole process tree, and does not charge it", async () => {
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_JOB_TIMEOUT_SECONDS: "2" },
    });
    const { apiKey } = await stack.createAccount("business");
    const client = new Client(stack.baseUrl, apiKey);
    // A first quick job leaves its sandbox waiting for the next job, beside a fresh spare. On a loaded
    // machine even it can pass the short timeout; it is charged only when it is done.
    const first = await client.waitForJob(
      (await client.postFiles("/v1/rotate", [{ path: small }])).body.id as string,
    );
    const before = descendantsMatching(process.pid, "sandbox/child.js");
    expect(before.length).toBeGreaterThanOrEqual(1);
    for (const pid of before) {
      // The sandboxes that parse the untrusted files hold none of the service's secrets.
      const sandboxEnv = readFileSync(`/proc/${pid}/environ`, "utf8");
      expect(sandboxEnv).not.toContain("OCTAVO_");
      expect(sandboxEnv).not.toContain(stack.config.secretKey);
    }

    // OCR of a scanned page takes about 5 s here (OCRmyPDF, Tesseract, Ghostscript): well past 2 s.
    // The sandboxes are watched while it runs: on a loaded machine the spare it takes may still have
    // been between fork and exec (not yet "sandbox/child.js") when `before` was read.
    const seen = new Set(before);
    const watch = setInterval(() => {
      for (const pid of descendantsMatching(process.pid, "sandbox/child.js")) seen.add(pid);
    }, 50);
    const created = await client.postFiles("/v1/ocr", [{ path: scan }]);
    const job = await client.waitForJob(created.body.id as string).finally(() => clearInterval(watch));
    expect(job).toMatchObject({ status: "failed", error: "timeout" });
    expect(job.message).toMatch(/longer than/);
    // The sandbox that ran the job is gone, with the tools it started.
    const after = descendantsMatching(process.pid, "sandbox/child.js");
    expect([...seen].filter((pid) => !after.includes(pid)).length).toBeGreaterThanOrEqual(1);
    // A SIGKILLed tool takes a moment to go.
    await waitFor("the OCR tools to have exited", () =>
      [...descendantsMatching(process.pid, "ocrmypdf"), ...descendantsMatching(process.pid, "tesseract")]
        .length === 0
        ? true
        : undefined,
    );
    // The timed-out OCR is not charged (nor reserved); the rotate is, when it finished.
    expect((await client.get("/v1/account")).body).toMatchObject({
      creditsUsed: first.status === "done" ? 1 : 0,
      creditsReserved: 0,
    });
  });

  it("deletes inputs once the job has run and results after their TTL; the job then says they expired", async () => {
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_RESULT_TTL_SECONDS: "1" },
    });
    const { apiKey } = await stack.createAccount("free");
    const client = new Client(stack.baseUrl, apiKey);
    const created = await client.postFiles("/v1/rotate", [{ path: small }]);
    const jobId = created.body.id as string;
    const done = await client.waitForJob(jobId);
    expect(done.status).toBe("done");
    // The worker deletes the inputs just after it settles the job, so the client can hear of it first.
    const { jobs } = stack.runtime;
    const input = await waitFor("the job's input to be deleted", async () => {
      const [file] = await jobs.files(jobId, "input");
      return file?.deleted_at ? file : undefined;
    });
    expect(await stack.runtime.store.stat(input?.storage_key ?? "")).toBeUndefined();

    const url = done.outputs?.[0]?.url ?? "";
    expect((await client.download(url)).status).toBe(200);
    // The result TTL under test is 1 s: the janitor deletes the result once it has passed.
    const { runtime } = stack;
    const swept = await waitFor(
      "the janitor to delete the result",
      async () => {
        const counts = await runJanitor({ ...runtime });
        return counts.expired > 0 ? counts : undefined;
      },
      30_000,
      200,
    );
    expect(swept.expired).toBe(1);

    const after = (await client.get(`/v1/jobs/${jobId}`)).body;
    expect(after.status).toBe("done");
    expect(after.outputs).toEqual([expect.objectContaining({ expired: true })]);
    expect((after.outputs as { url?: string }[])[0]?.url).toBeUndefined();
    const gone = await client.download(url);
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.bytes.toString())).toMatchObject({ error: "result_expired" });
  });

  it("expires download links; reading the job again gives a fresh one", async () => {
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_LINK_TTL_SECONDS: "1" },
    });
    const { apiKey } = await stack.createAccount("free");
    const client = new Client(stack.baseUrl, apiKey);
    const created = await client.postFiles("/v1/rotate", [{ path: small }]);
    const done = await client.waitForJob(created.body.id as string);
    const first = done.outputs?.[0]?.url ?? "";
    // The link TTL under test is 1 s, and expiries are whole seconds: stale within about 2 s.
    const stale = await waitFor(
      "the download link to expire",
      async () => {
        const answer = await client.download(first);
        return answer.status === 200 ? undefined : answer;
      },
      30_000,
      200,
    );
    expect(stale.status).toBe(403);
    expect(JSON.parse(stale.bytes.toString())).toMatchObject({ error: "link_expired" });
    const again = await client.waitForJob(created.body.id as string);
    expect((await client.download(again.outputs?.[0]?.url ?? "")).status).toBe(200);
  });

  it("never lets concurrent requests overrun a Free plan's credits", async () => {
    stack = await startStack({ database: "postgres", redis: "shared" });
    const { apiKey, accountId } = await stack.createAccount("free");
    await stack.runtime.accounts.adjustCredits(accountId, -98, "test: leave 2 credits");
    const client = new Client(stack.baseUrl, apiKey);
    // Five at once (the Free plan's 10 requests a minute leave room for the polls that follow).
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.postFiles("/v1/rotate", [{ path: small }])),
    );
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(accepted).toHaveLength(2);
    expect(refused).toHaveLength(3);
    expect(refused[0]?.body).toMatchObject({ error: "quota_exceeded" });
    for (const answer of accepted) await client.waitForJob(answer.body.id as string);
    expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 2, creditsRemaining: 0 });
    const oneMore = await client.postFiles("/v1/rotate", [{ path: small }]);
    expect(oneMore.status).toBe(402);
  });
});

describe("the queue", () => {
  it("keeps no job queued forever: the janitor re-enqueues a job that never reached Redis", async () => {
    const stack = await startStack({ database: "sqlite", redis: "supervised", workers: false });
    try {
      const { apiKey } = await stack.createAccount("free");
      const client = new Client(stack.baseUrl, apiKey);
      const created = await client.postFiles("/v1/rotate", [{ path: small }]);
      const jobId = created.body.id as string;
      // Simulate a lost enqueue: remove the message, as if Redis had been down at the time.
      await stack.runtime.producerConnection.del(`${stack.config.queuePrefix}:rotate:${jobId}`);
      // Every operation job waits in the prioritized set: its priority is its place (see the fairness test).
      expect(
        await stack.runtime.producerConnection.zrem(`${stack.config.queuePrefix}:rotate:prioritized`, jobId),
      ).toBe(1);
      const later = new Date(Date.now() + 120_000);
      expect((await runJanitor({ ...stack.runtime }, later)).requeued).toBe(1);
      const { startWorkers } = await import("@octavo/worker");
      const workers = await startWorkers({ ...stack.runtime }, ["rotate"]);
      try {
        expect((await client.waitForJob(jobId)).status).toBe("done");
      } finally {
        await workers.close();
      }
    } finally {
      await stack.close();
    }
  });

  it("runs a job again after a backoff while the database is unreachable for a moment, instead of failing it", async () => {
    const stack = await startStack({ database: "postgres", redis: "supervised", workers: false });
    try {
      const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
      const created = await client.postFiles("/v1/rotate", [{ path: small }], { angle: 90 });
      const jobId = created.body.id as string;
      // The worker comes while the database refuses connections: its first run cannot even start the job.
      const restore = await refuseConnections(stack.config.databaseUrl);
      const { startWorkers } = await import("@octavo/worker");
      const workers = await startWorkers({ ...stack.runtime }, ["rotate"]);
      try {
        const jobKey = `${stack.config.queuePrefix}:rotate:${jobId}`;
        // BullMQ counts the failed runs ("attempts made"): one is in, and the job waits for its retry.
        await waitFor("the first run to fail", async () =>
          Number(await stack.runtime.producerConnection.hget(jobKey, "atm")) >= 1 ? true : undefined,
        );
        await restore();
        const job = await client.waitForJob(jobId, 60_000);
        expect(job.status).toBe("done");
        expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 1, creditsReserved: 0 });
      } finally {
        await restore();
        await workers.close();
      }
    } finally {
      await stack.close();
    }
  });

  // Both need a whole default stack and read its queues' order; the fairness case goes last, as it leaves
  // rotations of its burst queued behind it.
  describe("on a default single-machine stack", () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ database: "sqlite", redis: "supervised" });
    });
    afterAll(async () => {
      await stack?.close();
    });

    it("runs no more of an account's heavy jobs at once than its plan allows, so another account's job starts", async () => {
      // Free: one heavy job at a time. Two heavy slots on this machine: without the cap, its two jobs take both.
      const free = new Client(stack.baseUrl, (await stack.createAccount("free")).apiKey);
      const other = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
      const file = [{ path: corpusPath("general/samplefiles_GeoTopo-komprimiert.pdf") }];
      const mine = [];
      for (let index = 0; index < 2; index += 1) {
        const created = await free.postFiles("/v1/compress", file, { level: "recommended" });
        expect(created.status).toBe(202);
        mine.push(created.body.id as string);
      }
      const theirs = await other.postFiles("/v1/compress", file, { level: "recommended" });
      const [first, second] = await Promise.all(mine.map((id) => free.waitForJob(id, 120_000)));
      const job = await other.waitForJob(theirs.body.id as string, 120_000);
      for (const ended of [first, second, job]) expect(ended?.status).toBe("done");
      const at = (time: string | undefined) => Date.parse(time ?? "");
      // The free account's second job waited for its first; the other account's did not wait for either.
      expect(at(second?.startedAt)).toBeGreaterThanOrEqual(at(first?.finishedAt));
      expect(at(job.startedAt)).toBeLessThan(at(second?.startedAt));
      // It started while the free account's first job still ran: it waited for neither.
      expect(at(job.startedAt)).toBeLessThan(at(first?.finishedAt));
    }, 180_000);

    it("gives each account its turn: one account's backlog does not hold up another account's job", async () => {
      const burst = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
      const other = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
      // 250 rotations from one account (within its 300 requests a minute), sent 25 at a time.
      const burstIds: string[] = [];
      for (let batch = 0; batch < 10; batch += 1) {
        const created = await Promise.all(
          Array.from({ length: 25 }, () => burst.postFiles("/v1/rotate", [{ path: small }], { angle: 90 })),
        );
        for (const answer of created) {
          expect(answer.status).toBe(202);
          burstIds.push(answer.body.id as string);
        }
      }
      const lone = await other.postFiles("/v1/rotate", [{ path: small }], { angle: 90 });
      const loneJob = await other.waitForJob(lone.body.id as string);
      expect(loneJob.status).toBe("done");

      const rows = await kyselyOf(stack.runtime.database)
        .selectFrom("jobs")
        .select(["id", "started_at"])
        .where("id", "in", burstIds)
        .execute();
      const startedAt = (row: { started_at: string | null }) =>
        row.started_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.started_at);
      const loneCreated = Date.parse(loneJob.createdAt);
      const loneStarted = Date.parse(loneJob.startedAt ?? "");
      // The burst's jobs that had not started when the lone job came, and those of them that still ran first.
      const waiting = rows.filter((row) => startedAt(row) > loneCreated);
      const ranFirst = waiting.filter((row) => startedAt(row) < loneStarted);
      expect(waiting.length, "the burst should still be queued when the lone job comes").toBeGreaterThan(50);
      // First come, first served would run every one of them first; taking turns, at most the jobs the
      // workers had already taken from the queue (twice the light slots).
      expect(ranFirst.length).toBeLessThanOrEqual(2 * 2 * stack.config.workerConcurrency);
      // And it was done while the burst was still going: it did not wait for the backlog.
      const loneFinished = Date.parse(loneJob.finishedAt ?? "");
      expect(rows.filter((row) => startedAt(row) > loneFinished).length).toBeGreaterThan(0);
    }, 180_000);
  });
});
