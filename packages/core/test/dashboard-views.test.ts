import { getOperation, type OperationId } from "@octavo/contracts";
import { createDatabase, type DatabaseHandle, migrateToLatest } from "@octavo/db";
import { kyselyOf, listJobFiles, markJobFilesDeleted } from "@octavo/db/repositories";
import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AccountService,
  creditsChart,
  FileLinkSigner,
  JobService,
  MAX_RECENT_JOBS,
  recentJobs,
  usageOf,
} from "../src/index.js";
import { acceptJob, startedJob } from "./accepted-job.js";

const secretKey = "k".repeat(43);
const links = new FileLinkSigner(secretKey, "https://pdf.example.com", 900);
const now = new Date("2026-11-23T10:00:00.000Z");
const merge = getOperation("merge").credits;

describe.each<DatabaseKind>(["sqlite", "postgres"])("dashboard views on %s", (kind) => {
  let resource: TempResource;
  let handle: DatabaseHandle;
  let accounts: AccountService;
  let jobs: JobService;
  let mine: string;
  let theirs: string;

  /** A merge job accepted at `createdAt`, then done/failed at `finishedAt` or left queued. */
  async function job(
    accountId: string,
    createdAt: string,
    end?: { status: "done" | "failed"; startedAt: string; finishedAt: string; outputs?: number },
    operation: OperationId = "merge",
  ): Promise<string> {
    const id = await acceptJob(jobs, accountId, operation, new Date(createdAt));
    if (!end) return id;
    const started = await startedJob(jobs, id, operation, new Date(end.startedAt));
    if (end.status === "failed") {
      const failure = {
        status: "failed",
        code: "password_required",
        message: "The PDF is encrypted.",
      } as const;
      await jobs.settle(started, failure, new Date(end.finishedAt));
    } else {
      const outputs = Array.from({ length: end.outputs ?? 1 }, (_, position) => ({
        name: `out-${position}.pdf`,
        size: 100 + position,
        contentType: "application/pdf",
        storageKey: `jobs/${id}/out/${position}`,
      }));
      await jobs.settle(
        started,
        { status: "done", outputs, work: { engine: "test" } },
        new Date(end.finishedAt),
      );
    }
    return id;
  }

  beforeAll(async () => {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url);
    await migrateToLatest(handle);
    accounts = new AccountService(handle, secretKey);
    // The queue is not under test here: accepted jobs are only recorded.
    jobs = new JobService(handle, {
      enqueueJob: async () => undefined,
      enqueueJobAgain: async () => undefined,
    });
    mine = (await accounts.createAccount("mine@example.com", "business", new Date("2026-10-01T00:00:00Z")))
      .accountId;
    theirs = (
      await accounts.createAccount("theirs@example.com", "business", new Date("2026-10-01T00:00:00Z"))
    ).accountId;
  });

  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("charts every day of the month, zero-filled, with only this account's charges of this month", async () => {
    const done = (startedAt: string, finishedAt: string) => ({
      status: "done" as const,
      startedAt,
      finishedAt,
    });
    await job(mine, "2026-11-01T00:00:00.000Z", done("2026-11-01T00:00:01.000Z", "2026-11-01T00:00:02.000Z"));
    await job(mine, "2026-11-03T09:00:00.000Z", done("2026-11-03T09:00:01.000Z", "2026-11-03T09:00:05.000Z"));
    await job(mine, "2026-11-03T23:59:59.000Z", done("2026-11-04T00:00:00.000Z", "2026-11-04T00:00:01.000Z"));
    await job(mine, "2026-11-05T09:00:00.000Z", {
      status: "failed",
      startedAt: "2026-11-05T09:00:01.000Z",
      finishedAt: "2026-11-05T09:00:02.000Z",
    }); // not charged
    await job(mine, "2026-11-06T09:00:00.000Z"); // still queued: reserved, not charged
    await job(mine, "2026-10-31T09:00:00.000Z", done("2026-10-31T09:00:01.000Z", "2026-10-31T09:00:02.000Z"));
    // Accepted in November, finished in December: charged to November, on its last day.
    await job(mine, "2026-11-30T23:59:59.000Z", done("2026-12-01T00:00:10.000Z", "2026-12-01T00:00:20.000Z"));
    await job(
      theirs,
      "2026-11-02T09:00:00.000Z",
      done("2026-11-02T09:00:01.000Z", "2026-11-02T09:00:02.000Z"),
    );
    await accounts.adjustCredits(mine, 500, "goodwill", new Date("2026-11-10T00:00:00Z")); // not a charge

    const days = await creditsChart(handle, mine, "business", now);
    expect(days).toHaveLength(30);
    expect(days[0]?.day).toBe("2026-11-01");
    expect(days.at(-1)?.day).toBe("2026-11-30");
    expect(days.filter((entry) => entry.credits > 0)).toEqual([
      { day: "2026-11-01", credits: merge },
      { day: "2026-11-03", credits: merge },
      { day: "2026-11-04", credits: merge },
      { day: "2026-11-30", credits: merge },
    ]);
    // The days add up to the month's used credits.
    const total = days.reduce((sum, entry) => sum + entry.credits, 0);
    expect(total).toBe((await usageOf(handle, mine, "business", now)).creditsUsed);
    expect(total).toBe(4 * merge);

    const december = await creditsChart(handle, mine, "business", new Date("2026-12-15T00:00:00Z"));
    expect(december).toHaveLength(31);
    expect(december.every((entry) => entry.credits === 0)).toBe(true);
    const february = await creditsChart(handle, theirs, "free", new Date("2027-02-03T00:00:00Z"));
    expect(february.map((entry) => entry.day).slice(-1)).toEqual(["2027-02-28"]);
    expect(february).toHaveLength(28);
    const october = await creditsChart(handle, mine, "business", new Date("2026-10-20T00:00:00Z"));
    expect(october.filter((entry) => entry.credits > 0)).toEqual([{ day: "2026-10-31", credits: merge }]);
    const theirNovember = await creditsChart(handle, theirs, "business", now);
    expect(theirNovember.filter((entry) => entry.credits > 0)).toEqual([
      { day: "2026-11-02", credits: merge },
    ]);
  });

  it("lists recent jobs newest first with errors, durations and download links, never another account's", async () => {
    // After every job of the test above.
    const later = new Date("2026-12-05T10:00:00.000Z");
    const done = await job(
      mine,
      "2026-12-02T10:00:00.000Z",
      {
        status: "done",
        startedAt: "2026-12-02T10:00:01.000Z",
        finishedAt: "2026-12-02T10:00:03.500Z",
        outputs: 2,
      },
      "split",
    );
    const failed = await job(mine, "2026-12-03T10:00:00.000Z", {
      status: "failed",
      startedAt: "2026-12-03T10:00:01.000Z",
      finishedAt: "2026-12-03T10:00:02.000Z",
    });
    const expired = await job(mine, "2026-12-01T10:00:00.000Z", {
      status: "done",
      startedAt: "2026-12-01T10:00:01.000Z",
      finishedAt: "2026-12-01T10:00:02.000Z",
    });
    const expiredOutputs = await listJobFiles(kyselyOf(handle), expired, "output");
    await markJobFilesDeleted(
      kyselyOf(handle),
      expiredOutputs.map((file) => file.id),
      "2026-12-01T11:00:02.000Z",
    );
    const queued = await job(mine, "2026-12-04T10:00:00.000Z");
    const foreign = await job(theirs, "2026-12-04T11:00:00.000Z", {
      status: "done",
      startedAt: "2026-12-04T11:00:01.000Z",
      finishedAt: "2026-12-04T11:00:02.000Z",
    });

    const list = await recentJobs(handle, links, { accountId: mine, mode: "live" }, { limit: 4, now: later });
    expect(list.map((entry) => entry.id)).toEqual([queued, failed, done, expired]);
    const [queuedView, failedView, doneView, expiredView] = list;

    expect(queuedView).toMatchObject({
      status: "queued",
      operation: "merge",
      credits: merge,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      errorCode: null,
      errorMessage: null,
      outputs: [],
    });
    expect(failedView).toMatchObject({
      status: "failed",
      errorCode: "password_required",
      errorMessage: "The PDF is encrypted.",
      durationMs: 1000,
      outputs: [],
    });
    expect(doneView).toMatchObject({
      status: "done",
      operation: "split",
      progress: 1,
      createdAt: "2026-12-02T10:00:00.000Z",
      durationMs: 2500,
    });
    expect(doneView?.outputs.map((output) => [output.name, output.size, output.expired])).toEqual([
      ["out-0.pdf", 100, false],
      ["out-1.pdf", 101, false],
    ]);
    for (const output of doneView?.outputs ?? []) {
      expect(output.url).toMatch(/^https:\/\/pdf\.example\.com\/v1\/files\/[^/]+\/out-\d\.pdf\?expires=/);
      expect(output.urlExpiresAt).toBe("2026-12-05T10:15:00.000Z");
    }
    expect(expiredView?.outputs).toEqual([
      { name: "out-0.pdf", size: 100, contentType: "application/pdf", expired: true },
    ]);

    // Filtering by status, and isolation however the list is asked for.
    const failedOnly = await recentJobs(
      handle,
      links,
      { accountId: mine, mode: "live" },
      { status: "failed", limit: 50, now: later },
    );
    expect(failedOnly.every((entry) => entry.status === "failed")).toBe(true);
    expect(failedOnly.map((entry) => entry.id)).toContain(failed);
    const everything = await recentJobs(
      handle,
      links,
      { accountId: mine, mode: "live" },
      { limit: 1000, now: later },
    );
    expect(everything.length).toBeLessThanOrEqual(MAX_RECENT_JOBS);
    expect(everything.map((entry) => entry.id)).not.toContain(foreign);
    const theirsList = await recentJobs(
      handle,
      links,
      { accountId: theirs, mode: "live" },
      { limit: 50, now: later },
    );
    expect(theirsList.map((entry) => entry.id)).toContain(foreign);
    expect(theirsList.map((entry) => entry.id)).not.toContain(done);
    expect(
      await recentJobs(
        handle,
        links,
        { accountId: "no-such-account", mode: "live" },
        { limit: 10, now: later },
      ),
    ).toEqual([]);
    expect(
      await recentJobs(handle, links, { accountId: mine, mode: "live" }, { limit: 0, now: later }),
    ).toHaveLength(1);
  });
});
