import type { OperationId } from "@octavo/contracts";
import { createDatabase, type DatabaseHandle, migrateToLatest } from "@octavo/db";
import { createTestDatabase, type TempResource } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountService, BacklogEstimator, JobService } from "../src/index.js";
import { acceptJob, startedJob } from "./accepted-job.js";

const now = new Date("2026-11-23T10:00:00.000Z");

describe("the back-pressure estimate", () => {
  let resource: TempResource;
  let handle: DatabaseHandle;
  let jobs: JobService;
  let account: string;
  const gauge = { waitingJobs: 0, slotCount: 2 };
  let estimator: BacklogEstimator;

  /** A job of `operation` that ran for `seconds` (or is left queued when undefined). */
  async function job(operation: OperationId, seconds?: number, accountId = account): Promise<void> {
    const id = await acceptJob(jobs, accountId, operation, now);
    if (seconds === undefined) return;
    const started = await startedJob(jobs, id, operation, now);
    const outputs = [
      { name: "a.pdf", size: 1, contentType: "application/pdf", storageKey: `jobs/${id}/out/0` },
    ];
    await jobs.settle(
      started,
      { status: "done", outputs, work: { engine: "test" } },
      new Date(now.getTime() + seconds * 1000),
    );
  }

  beforeAll(async () => {
    resource = await createTestDatabase("sqlite");
    handle = createDatabase(resource.url);
    await migrateToLatest(handle);
    jobs = new JobService(handle, {
      enqueueJob: async () => undefined,
      enqueueJobAgain: async () => undefined,
    });
    account = (
      await new AccountService(handle, "k".repeat(43)).createAccount("b@example.com", "business", now)
    ).accountId;
    estimator = new BacklogEstimator(
      handle,
      { waiting: async () => gauge.waitingJobs, slots: async () => gauge.slotCount },
      { accountSeconds: 60, queueSeconds: 120 },
    );
  });
  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("takes an operation's median run time once it has history, its lane's typical time before", async () => {
    expect(await estimator.secondsPerJob("ocr")).toBe(10); // heavy, no history
    expect(await estimator.secondsPerJob("merge")).toBe(1); // light, no history
    for (const seconds of [4, 6, 5, 30, 5]) await job("compress", seconds);
    expect(await estimator.secondsPerJob("compress")).toBe(5);
  });

  it("bounds an account's own backlog (429) and the queue's (503), and says when to retry", async () => {
    // compress: 5 s a job on 2 slots. The account has nothing waiting: 1 job, 2.5 s.
    expect(await estimator.check(account, "compress")).toEqual({ over: false });
    // 24 of its own waiting, the new one 25th: 62.5 s against 60.
    for (let index = 0; index < 24; index += 1) await job("compress");
    expect(await estimator.check(account, "compress")).toEqual({
      over: "account",
      seconds: 62.5,
      retryAfterSeconds: 3,
    });
    // Another account is not held back by this one's backlog...
    const other = (
      await new AccountService(handle, "k".repeat(43)).createAccount("o@example.com", "business", now)
    ).accountId;
    expect(await estimator.check(other, "compress")).toEqual({ over: false });
    // ... until the whole queue's jobs would take too long: 48 waiting, the new one 49th: 122.5 s.
    gauge.waitingJobs = 48;
    expect(await estimator.check(other, "compress")).toEqual({
      over: "queue",
      seconds: 122.5,
      retryAfterSeconds: 3,
    });
  });
});
