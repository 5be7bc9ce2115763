import { type OperationId, plans } from "@octavo/contracts";
import { createDatabase, type DatabaseHandle, type JobRow, migrateToLatest } from "@octavo/db";
import { kyselyOf } from "@octavo/db/repositories";
import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AccountService,
  Housekeeping,
  IdempotencyConflictError,
  type JobOwner,
  JobService,
  type NewJob,
  newId,
  type QueuedJob,
  QuotaExceededError,
  usageOf,
  WebhookDeliveries,
} from "../src/index.js";
import { startedJob } from "./accepted-job.js";

const secretKey = "k".repeat(43);
const now = new Date("2026-11-23T10:00:00.000Z");

/** A queue that records what it is given (operation, job, place), and can be made to refuse (Redis down). */
class RecordingQueue {
  readonly queued: [OperationId, string, number][] = [];
  readonly requestIds = new Map<string, string | undefined>();
  down = false;
  async enqueueJob(operation: OperationId, job: QueuedJob, place: number): Promise<void> {
    if (this.down) throw new Error("Redis is down");
    this.queued.push([operation, job.jobId, place]);
    this.requestIds.set(job.jobId, job.requestId);
  }
  enqueueJobAgain(operation: OperationId, job: QueuedJob, place: number): Promise<void> {
    return this.enqueueJob(operation, job, place);
  }
  placeOf(jobId: string): number | undefined {
    return this.queued.findLast(([, id]) => id === jobId)?.[2];
  }
}

describe.each<DatabaseKind>(["sqlite", "postgres"])("a job's unit of work on %s", (kind) => {
  let resource: TempResource;
  let handle: DatabaseHandle;
  let statements: string[];
  let queue: RecordingQueue;
  let jobs: JobService;
  let deliveries: WebhookDeliveries;
  let accounts: AccountService;
  let account: string;

  const live = (accountId: string): JobOwner => ({ accountId, mode: "live" });
  const newJob = (overrides: Partial<NewJob> = {}): NewJob => {
    const id = newId();
    return {
      id,
      accountId: account,
      mode: "live",
      plan: "business",
      operation: "rotate",
      options: { angle: 90 },
      credits: 1,
      webhookUrl: "https://hooks.example.com/octavo",
      inputs: [
        { name: "a.pdf", size: 10, contentType: "application/pdf", storageKey: `jobs/${id}/inputs/0` },
      ],
      ...overrides,
    };
  };
  const output = (id: string) => [
    { name: "a.pdf", size: 12, contentType: "application/pdf", storageKey: `jobs/${id}/outputs/0` },
  ];

  beforeAll(async () => {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url, { onQuery: (sql) => statements.push(sql) });
    statements = [];
    await migrateToLatest(handle);
    queue = new RecordingQueue();
    jobs = new JobService(handle, queue);
    deliveries = new WebhookDeliveries(handle);
    accounts = new AccountService(handle, secretKey);
    account = (await accounts.createAccount("jobs@example.com", "business", now)).accountId;
  });

  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("accepts a job with its reservation, then queues it", async () => {
    const job = newJob();
    const accepted = await jobs.accept(job, now);
    expect(accepted).toMatchObject({ queued: true, job: { id: job.id, status: "queued", credits: 1 } });
    expect(queue.queued.some(([operation, id]) => operation === "rotate" && id === job.id)).toBe(true);
    expect((await jobs.files(job.id, "input")).map((file) => file.storage_key)).toEqual([
      `jobs/${job.id}/inputs/0`,
    ]);
    expect((await usageOf(handle, account, "business", now)).creditsReserved).toBeGreaterThanOrEqual(1);
  });

  it("queues each job at its place: behind its own account's unfinished jobs of the operation, not others'", async () => {
    const mine = (await accounts.createAccount(`burst-${newId()}@example.com`, "business", now)).accountId;
    const other = (await accounts.createAccount(`other-${newId()}@example.com`, "business", now)).accountId;
    const burst = [newJob({ accountId: mine }), newJob({ accountId: mine }), newJob({ accountId: mine })];
    for (const job of burst) await jobs.accept(job, now);
    expect(burst.map((job) => queue.placeOf(job.id))).toEqual([1, 2, 3]);
    // Another account's job, and another operation of the same account, are first in their turn.
    const theirs = newJob({ accountId: other });
    await jobs.accept(theirs, now);
    expect(queue.placeOf(theirs.id)).toBe(1);
    const split = newJob({ accountId: mine, operation: "split", options: {} });
    await jobs.accept(split, now);
    expect(queue.placeOf(split.id)).toBe(1);
    // A finished job is no longer ahead of anyone.
    const first = burst[0]?.id ?? "";
    const started = await startedJob(jobs, first, "rotate", now);
    await jobs.settle(started, { status: "done", outputs: output(first), work: { engine: "qpdf" } }, now);
    const later = newJob({ accountId: mine });
    await jobs.accept(later, now);
    expect(queue.placeOf(later.id)).toBe(3);
    // Queued again (its message lost), a job takes the place it had among the jobs before it.
    const lost = (await jobs.findForAccount(burst[2]?.id ?? "", live(mine))) as JobRow;
    await jobs.enqueueAgain(lost);
    expect(queue.placeOf(lost.id)).toBe(2);
  });

  it("keeps the id of the request that created a job, on its row and on every message queuing it", async () => {
    const job = newJob({ requestId: "req_follow_me" });
    const { job: row } = await jobs.accept(job, now);
    expect(row.request_id).toBe("req_follow_me");
    expect(queue.requestIds.get(job.id)).toBe("req_follow_me");
    queue.requestIds.delete(job.id);
    await jobs.enqueueAgain(row);
    expect(queue.requestIds.get(job.id)).toBe("req_follow_me");
    // A job made without one (an older row, a test) is queued without one.
    const bare = newJob();
    await jobs.accept(bare, now);
    expect(queue.requestIds.has(bare.id)).toBe(true);
    expect(queue.requestIds.get(bare.id)).toBeUndefined();
  });

  it("starts no more of an account's jobs of a lane than its plan allows at once; the others wait their turn", async () => {
    // Free: one heavy job and two light ones at once.
    const free = (await accounts.createAccount(`cap-${newId()}@example.com`, "free", now)).accountId;
    const heavy = [1, 2].map(() =>
      newJob({ accountId: free, plan: "free", webhookUrl: undefined, operation: "compress", options: {} }),
    );
    for (const job of heavy) await jobs.accept(job, now);
    const [first, second] = heavy.map((job) => job.id) as [string, string];
    const running = await startedJob(jobs, first, "compress", now);
    expect(await jobs.start(second, "compress", now)).toEqual({ kind: "account-busy", cap: 1 });
    // The running job, delivered again after its worker died, is not held back by its own place.
    expect((await jobs.start(first, "compress", now)).kind).toBe("started");
    // The light lane has places of its own.
    const light = newJob({ accountId: free, plan: "free", webhookUrl: undefined });
    await jobs.accept(light, now);
    expect((await jobs.start(light.id, "rotate", now)).kind).toBe("started");
    // Another account is not held back.
    const other = newJob({ operation: "compress", options: {} });
    await jobs.accept(other, now);
    expect((await jobs.start(other.id, "compress", now)).kind).toBe("started");
    // The first heavy job ends: the second starts.
    await jobs.settle(running, { status: "failed", code: "timeout", message: "slow" }, now);
    expect((await jobs.start(second, "compress", now)).kind).toBe("started");
  });

  it("keeps a job the queue refused, queued in the database for the janitor", async () => {
    queue.down = true;
    const job = newJob();
    try {
      expect(await jobs.accept(job, now)).toMatchObject({ queued: false, job: { status: "queued" } });
    } finally {
      queue.down = false;
    }
    expect(await jobs.findForAccount(job.id, live(account))).toMatchObject({ status: "queued" });
  });

  it("binds an Idempotency-Key in the job's transaction: a second job with the key leaves nothing", async () => {
    const idempotency = {
      key: `order-${newId()}`,
      fingerprint: "fp",
      answer: { status: 202, body: { id: "x" } },
    };
    const first = newJob({ idempotency });
    await jobs.accept(first, now);
    const second = newJob({ idempotency });
    await expect(jobs.accept(second, now)).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(await jobs.findForAccount(second.id, live(account))).toBeUndefined();
    expect(await jobs.files(second.id, "input")).toEqual([]);
  });

  it("refuses a Free account's job past its credits, keeping nothing", async () => {
    const free = (await accounts.createAccount(`free-${newId()}@example.com`, "free", now)).accountId;
    const allowance = plans.free.creditsPerMonth;
    await accounts.adjustCredits(free, -allowance, "spent", now);
    const job = newJob({ accountId: free, plan: "free", webhookUrl: undefined });
    await expect(jobs.checkCredits(live(free), "free", 1, now)).rejects.toBeInstanceOf(QuotaExceededError);
    await expect(jobs.accept(job, now)).rejects.toBeInstanceOf(QuotaExceededError);
    expect(await jobs.findForAccount(job.id, live(free))).toBeUndefined();
  });

  it("runs a test key's job uncharged, even past a Free account's credits, seen by test keys only", async () => {
    const free = (await accounts.createAccount(`test-mode-${newId()}@example.com`, "free", now)).accountId;
    await accounts.adjustCredits(free, -plans.free.creditsPerMonth, "spent", now);
    const test: JobOwner = { accountId: free, mode: "test" };
    const before = await usageOf(handle, free, "free", now);
    await jobs.checkCredits(test, "free", 1, now);
    const job = newJob({ accountId: free, plan: "free", mode: "test", webhookUrl: undefined });
    const { job: row } = await jobs.accept(job, now);
    expect(row).toMatchObject({ mode: "test", credits: 1, status: "queued" });
    // Nothing reserved while it runs, nothing charged when it is done: no ledger entry.
    expect((await usageOf(handle, free, "free", now)).creditsReserved).toBe(before.creditsReserved);
    const started = await startedJob(jobs, job.id, "rotate", now);
    await jobs.settle(started, { status: "done", outputs: output(job.id), work: { engine: "qpdf" } }, now);
    expect(
      await kyselyOf(handle).selectFrom("credit_ledger").selectAll().where("job_id", "=", job.id).execute(),
    ).toEqual([]);
    expect(await usageOf(handle, free, "free", now)).toEqual(before);
    // Only the account's test keys see it, by id or in the list; its live keys do not.
    expect(await jobs.findForAccount(job.id, test)).toMatchObject({ status: "done" });
    expect(await jobs.findForAccount(job.id, live(free))).toBeUndefined();
    expect((await jobs.list(test, { limit: 10 })).jobs.map((found) => found.id)).toEqual([job.id]);
    expect((await jobs.list(live(free), { limit: 10 })).jobs).toEqual([]);
  });

  it("lets a test job's outputs expire after test mode's hour when the result TTL is longer", async () => {
    const finished = new Date(now.getTime() - 90 * 60 * 1000);
    const done = async (mode: "live" | "test") => {
      const job = newJob({ mode, webhookUrl: undefined });
      await jobs.accept(job, finished);
      const started = await startedJob(jobs, job.id, "rotate", finished);
      await jobs.settle(
        started,
        { status: "done", outputs: output(job.id), work: { engine: "qpdf" } },
        finished,
      );
      return `jobs/${job.id}/outputs/0`;
    };
    const [liveOutput, testOutput] = [await done("live"), await done("test")];
    // A 2-hour result TTL: 90 minutes on, the test job's output is past its hour, the live one's is not.
    const expired = async (at: Date, ttlSeconds = 7200) =>
      (await new Housekeeping(handle).expiredOutputs(at, ttlSeconds, 1000)).map((file) => file.storage_key);
    expect(await expired(now)).toContain(testOutput);
    expect(await expired(now)).not.toContain(liveOutput);
    expect(await expired(new Date(now.getTime() + 60 * 60 * 1000))).toEqual(
      expect.arrayContaining([liveOutput, testOutput]),
    );
    // A result TTL shorter than the hour applies to both: 31 minutes on, a 30-minute TTL has passed.
    const halfHourOn = new Date(finished.getTime() + 31 * 60 * 1000);
    expect(await expired(halfHourOn)).not.toContain(testOutput);
    expect(await expired(halfHourOn, 1800)).toEqual(expect.arrayContaining([liveOutput, testOutput]));
  });

  it("runs a job reading its row once, and settles it with outputs, charge and webhook in one go", async () => {
    const job = newJob();
    await jobs.accept(job, now);
    statements = [];
    const started = await startedJob(jobs, job.id, "rotate", now);
    expect(started.job).toMatchObject({
      id: job.id,
      status: "active",
      attempts: 1,
      webhook_url: job.webhookUrl,
    });
    expect(started.inputs).toHaveLength(1);
    const settled = await jobs.settle(
      started,
      { status: "done", outputs: output(job.id), work: { engine: "qpdf" } },
      now,
    );
    // The row was read by the UPDATE that started the job; nothing selected it again.
    expect(statements.filter((sql) => /^select .* from "jobs"/i.test(sql))).toEqual([]);

    expect(settled?.deliveryId).toBeDefined();
    const pending = await deliveries.pending(settled?.deliveryId ?? "");
    expect(pending).toMatchObject({
      job: { status: "done", engine: "qpdf" },
      delivery: { status: "pending" },
    });
    expect(pending?.outputs.map((file) => file.name)).toEqual(["a.pdf"]);
    const ledger = await kyselyOf(handle)
      .selectFrom("credit_ledger")
      .selectAll()
      .where("job_id", "=", job.id)
      .execute();
    expect(ledger).toMatchObject([{ kind: "charge", amount: 1 }]);

    // Settled twice (a late duplicate): nothing changes, no second charge, no second delivery.
    expect(
      await jobs.settle(started, { status: "failed", code: "timeout", message: "late" }, now),
    ).toBeUndefined();
    expect(await jobs.start(job.id, "rotate", now)).toEqual({ kind: "ended" });
    expect(
      await kyselyOf(handle).selectFrom("credit_ledger").selectAll().where("job_id", "=", job.id).execute(),
    ).toHaveLength(1);
    expect(
      await kyselyOf(handle)
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("job_id", "=", job.id)
        .execute(),
    ).toHaveLength(1);
  });

  it("settles a failure with no charge, and keeps its delivery for the janitor if it never reached the queue", async () => {
    const job = newJob();
    await jobs.accept(job, now);
    const started = await startedJob(jobs, job.id, "rotate", now);
    const settled = await jobs.settle(
      started,
      { status: "failed", code: "invalid_input", message: "not a PDF" },
      now,
    );
    expect(await jobs.findForAccount(job.id, live(account))).toMatchObject({
      status: "failed",
      error_code: "invalid_input",
    });
    expect(
      await kyselyOf(handle).selectFrom("credit_ledger").selectAll().where("job_id", "=", job.id).execute(),
    ).toEqual([]);
    // The worker died before putting the delivery on the queue: the janitor finds it in the outbox.
    const outbox = await deliveries.unfinished(new Date(now.getTime() + 1), 100);
    expect(outbox.map((delivery) => delivery.id)).toContain(settled?.deliveryId);
  });

  it("fails a job that never ran (the janitor's deadline) with its webhook, once", async () => {
    const job = newJob();
    await jobs.accept(job, now);
    const failed = await jobs.fail(job.id, "timeout", "did not finish", now);
    expect(failed?.deliveryId).toBeDefined();
    expect(await jobs.fail(job.id, "timeout", "did not finish", now)).toBeUndefined();
    const silent = newJob({ webhookUrl: undefined });
    await jobs.accept(silent, now);
    const quiet = await jobs.fail(silent.id, "timeout", "did not finish", now);
    expect(quiet?.deliveryId).toBeUndefined();
    expect(quiet?.job).toMatchObject({ id: silent.id, status: "failed", error_code: "timeout" });
  });

  const chargesOf = (jobId: string) =>
    kyselyOf(handle).selectFrom("credit_ledger").selectAll().where("job_id", "=", jobId).execute();

  it("cancels a queued job: failed canceled, its reservation released, its webhook recorded, its inputs named", async () => {
    const job = newJob();
    await jobs.accept(job, now);
    const reservedBefore = (await usageOf(handle, account, "business", now)).creditsReserved;
    const row = await jobs.findForAccount(job.id, live(account));
    if (!row) throw new Error("no row");
    const cancellation = await jobs.cancel(row, now);
    expect(cancellation.kind).toBe("canceled");
    if (cancellation.kind !== "canceled") return;
    expect(cancellation.settled.job).toMatchObject({ status: "failed", error_code: "canceled" });
    expect(cancellation.settled.deliveryId).toBeDefined();
    expect(cancellation.inputs.map((file) => file.storage_key)).toEqual([`jobs/${job.id}/inputs/0`]);
    expect((await usageOf(handle, account, "business", now)).creditsReserved).toBe(reservedBefore - 1);
    // A worker that receives the message anyway finds the job ended.
    expect((await jobs.start(job.id, "rotate", now)).kind).toBe("ended");
    expect(await chargesOf(job.id)).toEqual([]);
  });

  it("decides the race of a cancel with the run by which ends the job first", async () => {
    // The run settles first: the job keeps its outcome and its charge; the cancel finds it finished.
    const first = newJob();
    await jobs.accept(first, now);
    const running = await startedJob(jobs, first.id, "rotate", now);
    await jobs.settle(running, { status: "done", outputs: output(first.id), work: { engine: "qpdf" } }, now);
    const late = await jobs.cancel(running.job, now);
    expect(late).toMatchObject({ kind: "finished", job: { status: "done" } });
    expect(await chargesOf(first.id)).toHaveLength(1);
    // The cancel lands first: the run's outcome is refused, nothing is charged and no output is kept.
    const second = newJob();
    await jobs.accept(second, now);
    const active = await startedJob(jobs, second.id, "rotate", now);
    expect((await jobs.cancel(active.job, now)).kind).toBe("canceled");
    const refused = await jobs.settle(
      active,
      { status: "done", outputs: output(second.id), work: { engine: "qpdf" } },
      now,
    );
    expect(refused).toBeUndefined();
    expect(await jobs.files(second.id, "output")).toEqual([]);
    expect(await chargesOf(second.id)).toEqual([]);
    expect(await jobs.findForAccount(second.id, live(account))).toMatchObject({
      status: "failed",
      error_code: "canceled",
    });
  });

  it("deletes a finished job's results on request, once marked, and never an unfinished job's", async () => {
    const job = newJob();
    await jobs.accept(job, now);
    const running = await startedJob(jobs, job.id, "rotate", now);
    expect(await jobs.deleteResults(running.job, now)).toBeUndefined();
    const settled = await jobs.settle(
      running,
      { status: "done", outputs: output(job.id), work: { engine: "qpdf" } },
      now,
    );
    if (!settled) throw new Error("not settled");
    const stored = await jobs.deleteResults(settled.job, now);
    // The input (its worker would have deleted it) and the output are still stored.
    expect(stored?.map((file) => file.storage_key).sort()).toEqual([
      `jobs/${job.id}/inputs/0`,
      `jobs/${job.id}/outputs/0`,
    ]);
    await jobs.filesDeleted(stored ?? [], now);
    const later = new Date(now.getTime() + 60_000);
    expect(await jobs.deleteResults(settled.job, later)).toEqual([]);
    const row = await jobs.findForAccount(job.id, live(account));
    // The first deletion's time is kept; the job keeps its status and its charge.
    expect(row).toMatchObject({ status: "done", results_deleted_at: now.toISOString() });
    expect(await chargesOf(job.id)).toHaveLength(1);
  });
});
