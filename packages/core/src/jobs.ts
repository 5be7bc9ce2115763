import {
  type JobErrorCode,
  type JobKind,
  type JobStep,
  jobKinds,
  type Lane,
  laneOf,
  type PlanId,
  planIds,
  plans,
} from "@octavo/contracts";
import type { DatabaseHandle, Db, JobFileRow, JobRow, KeyMode } from "@octavo/db";
import {
  claimIdempotencyKey,
  countUnfinishedJobs,
  findAccountById,
  findJob,
  findJobFile,
  findJobForAccount,
  finishJob,
  insertJob,
  insertJobFiles,
  insertLedgerEntry,
  type JobOwner,
  kyselyOf,
  listJobFiles,
  listOutputsOfJobs,
  listStoredFiles,
  lockAccount,
  lockAccountOfJob,
  markJobFilesDeleted,
  markResultsDeleted,
  type RunningCap,
  startJob,
  updateJobProgress,
  updateJobSteps,
} from "@octavo/db/repositories";
import { inSpan, SpanKind } from "@octavo/telemetry";
import { isPlanId } from "./accounts.js";
import { IdempotencyConflictError, storedIdempotencyKey } from "./idempotency.js";
import { type JobListQuery, type JobPage, listJobs } from "./job-list.js";
import { billingPeriodOf, newId, toIso } from "./time.js";
import { usageIn } from "./usage.js";
import { recordWebhookDelivery } from "./webhook-deliveries.js";

export interface StoredFile {
  name: string;
  size: number;
  contentType: string;
  storageKey: string;
  /** An input sent in a named upload field (Sign PDF's `certificate`), or the sealed secret options. */
  field?: string;
}

/** What the engine said about a finished job besides its outputs. */
export interface CompletedWork {
  engine: string;
  warnings?: readonly string[];
  /** Operation-specific facts, e.g. the compression achieved. */
  report?: Record<string, unknown>;
}

/** Where accepted jobs go to be run: one queue per operation (@octavo/queue's JobProducer is one). */
export interface JobQueue {
  /**
   * `place`: 1 + the account's unfinished jobs of this operation ahead of this one. The queue runs lower
   * places first, and the same place in the order jobs came: each account's jobs take turns, so one
   * account's backlog does not hold up another account's jobs.
   */
  enqueueJob(operation: JobKind, job: QueuedJob, place: number): Promise<void>;
  /** The same, for a job queued before whose message may be retained as finished: it runs again. */
  enqueueJobAgain(operation: JobKind, job: QueuedJob, place: number): Promise<void>;
}

/** What a queue message names: the job, and the request that created it (for the workers' log lines). */
export interface QueuedJob {
  jobId: string;
  requestId?: string | undefined;
}

export interface NewJob {
  /** Chosen before the upload, so inputs are stored under the job's own keys. */
  id: string;
  accountId: string;
  /** The mode of the key that sent it: a test job is never charged, and only test keys see it. */
  mode: KeyMode;
  plan: PlanId;
  /** One operation, or "pipeline" (its steps in `options.steps`, and in `steps`). */
  operation: JobKind;
  options: Record<string, unknown>;
  /** What the job costs if it succeeds: the operation's credits, or the sum of a pipeline's steps'. */
  credits: number;
  /** A pipeline's steps, each queued until its worker starts it. */
  steps?: JobStep[];
  webhookUrl: string | undefined;
  inputs: StoredFile[];
  /** The request's X-Request-Id, kept so the job's log lines can name the request. */
  requestId?: string;
  /**
   * An Idempotency-Key, bound in the job's own transaction to the request's fingerprint and to the
   * answer a retry with the same key gets.
   */
  idempotency?: { key: string; fingerprint: string; answer: { status: number; body: unknown } };
}

/** An accepted job; `queued` false: the queue did not take it, and the janitor will queue it again. */
export interface AcceptedJob {
  job: JobRow;
  queued: boolean;
}

/** A job a worker has started: its row as it was when it started, and its input files. */
export interface StartedJob {
  job: JobRow;
  inputs: JobFileRow[];
}

/**
 * What asking to start a job gave: started; or it had already ended (a duplicate or late delivery); or
 * its account already runs as many jobs of its lane as its plan allows (`cap`), and it waits its turn.
 */
export type StartAttempt =
  | ({ kind: "started" } & StartedJob)
  | { kind: "ended" }
  | { kind: "account-busy"; cap: number };

/** A lane's cap on an account's running jobs, by plan (the plans' `maxRunningJobs`), for `start`. */
function runningCapOf(lane: Lane): RunningCap {
  return {
    operations: jobKinds.filter((id) => laneOf(id) === lane),
    byPlan: Object.fromEntries(planIds.map((plan) => [plan, plans[plan].maxRunningJobs[lane]])),
  };
}
const runningCaps: Record<Lane, RunningCap> = { light: runningCapOf("light"), heavy: runningCapOf("heavy") };

/** How a run ended. */
export type Outcome =
  | { status: "done"; outputs: StoredFile[]; work: CompletedWork }
  | { status: "failed"; code: JobErrorCode; message: string };

/** A job settled: its row as it ended, and its webhook delivery, when it asked for one, recorded to be sent. */
export interface Settled {
  job: JobRow;
  deliveryId: string | undefined;
}

/** What asking to cancel a job gave: canceled now, with its inputs to delete; or it had already ended. */
export type Cancellation =
  | { kind: "canceled"; settled: Settled; inputs: JobFileRow[] }
  | { kind: "finished"; job: JobRow };

const CANCELED_MESSAGE = "The job was canceled at your request before it finished; nothing was charged.";

export class QuotaExceededError extends Error {
  override readonly name = "QuotaExceededError";
  constructor(
    readonly remaining: number,
    readonly needed: number,
    readonly periodEnd: string,
  ) {
    super(`this job needs ${needed} credits and ${remaining} remain this month`);
  }
}

/**
 * A job's two transactions, and the reads around them. Accepting: the credit check, the reservation,
 * the Idempotency-Key and the rows, in one transaction, then the queue. Settling: the final status, the
 * outputs, the charge and the webhook delivery, in one transaction, so a crash cannot end a job without
 * its charge or its webhook (the delivery row is the outbox the janitor sends from).
 */
export class JobService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly queue: JobQueue,
  ) {}

  /** A cheap refusal before any upload is read; the authoritative check is `accept`'s. */
  async checkCredits(owner: JobOwner, plan: PlanId, needed: number, now = new Date()): Promise<void> {
    if (owner.mode === "test" || plans[plan].overageUsdPer1000Credits !== null) return;
    const { accountId } = owner;
    const usage = await usageIn(kyselyOf(this.database), accountId, plan, now);
    if (usage.creditsRemaining < needed)
      throw new QuotaExceededError(usage.creditsRemaining, needed, usage.periodEnd);
  }

  /**
   * Records the job and its credit reservation, then queues it. On a Free plan the reservation is
   * checked against the month's allowance while the account row is locked (PostgreSQL) or the single
   * writer holds the database (SQLite), so concurrent requests cannot overrun it. A job whose enqueue
   * fails stays queued in the database, and the janitor queues it again.
   */
  accept(job: NewJob, now = new Date()): Promise<AcceptedJob> {
    const attributes = {
      "octavo.job.id": job.id,
      "octavo.operation": job.operation,
      "octavo.account.id": job.accountId,
      "db.system.name": this.database.dialect === "postgres" ? "postgresql" : "sqlite",
      "messaging.system": "bullmq",
      "messaging.destination.name": job.operation,
    };
    // The transaction and the enqueue: the queue message carries this span's context to the worker.
    return inSpan("job.accept", attributes, () => this.acceptTraced(job, now), { kind: SpanKind.PRODUCER });
  }

  private async acceptTraced(job: NewJob, now: Date): Promise<AcceptedJob> {
    const { credits } = job;
    const createdAt = toIso(now);
    const { row, place } = await kyselyOf(this.database)
      .transaction()
      .execute(async (trx) => {
        await lockAccount(trx, this.database.dialect, job.accountId);
        // A test job reserves nothing and is never charged (reservedCredits and settle leave it out).
        if (job.mode === "live" && plans[job.plan].overageUsdPer1000Credits === null) {
          const usage = await usageIn(trx, job.accountId, job.plan, now);
          if (usage.creditsRemaining < credits)
            throw new QuotaExceededError(usage.creditsRemaining, credits, usage.periodEnd);
        }
        const row: JobRow = {
          id: job.id,
          account_id: job.accountId,
          mode: job.mode,
          operation: job.operation,
          options: JSON.stringify(job.options),
          status: "queued",
          progress: 0,
          credits,
          period_start: billingPeriodOf(now).start,
          error_code: null,
          error_message: null,
          engine: null,
          warnings: null,
          report: null,
          webhook_url: job.webhookUrl ?? null,
          request_id: job.requestId ?? null,
          steps: job.steps ? JSON.stringify(job.steps) : null,
          results_deleted_at: null,
          attempts: 0,
          created_at: createdAt,
          started_at: null,
          finished_at: null,
        };
        const ahead = await countUnfinishedJobs(trx, job.accountId, job.operation);
        const { attempts: _, ...insertable } = row;
        await insertJob(trx, insertable, filesOf(job.id, "input", job.inputs, createdAt));
        if (job.idempotency) {
          const claimed = await claimIdempotencyKey(trx, {
            accountId: job.accountId,
            key: storedIdempotencyKey(job.mode, job.idempotency.key),
            fingerprint: job.idempotency.fingerprint,
            status: job.idempotency.answer.status,
            body: JSON.stringify(job.idempotency.answer.body),
            now: createdAt,
          });
          // Another request with this key got there first: this one creates nothing.
          if (!claimed) throw new IdempotencyConflictError(job.idempotency.key);
        }
        return { row, place: ahead + 1 };
      });
    const message = { jobId: job.id, requestId: job.requestId };
    const queued = await this.queue.enqueueJob(job.operation, message, place).then(
      () => true,
      () => false,
    );
    return { job: row, queued };
  }

  /** Queues a queued job again (its message was lost), in the place it had. */
  async enqueueAgain(job: JobRow): Promise<void> {
    const ahead = await countUnfinishedJobs(kyselyOf(this.database), job.account_id, job.operation, {
      createdAt: job.created_at,
      id: job.id,
    });
    const message = { jobId: job.id, requestId: job.request_id ?? undefined };
    await this.queue.enqueueJobAgain(job.operation as JobKind, message, ahead + 1);
  }

  /** The job, whoever's it is: for links that name a file, not an account. */
  find(jobId: string): Promise<JobRow | undefined> {
    return findJob(kyselyOf(this.database), jobId);
  }

  /** The owner's job, or undefined (unknown, another account's or the other mode's: they look the same). */
  findForAccount(jobId: string, owner: JobOwner): Promise<JobRow | undefined> {
    return findJobForAccount(kyselyOf(this.database), jobId, owner);
  }

  /** A page of the owner's jobs, newest first (GET /v1/jobs); throws InvalidCursorError. */
  list(owner: JobOwner, query: JobListQuery): Promise<JobPage> {
    return listJobs(kyselyOf(this.database), owner, query);
  }

  /** The outputs of many jobs in one query, by job id. */
  async outputsOf(jobs: readonly JobRow[]): Promise<Map<string, JobFileRow[]>> {
    const byJob = new Map<string, JobFileRow[]>();
    for (const file of await listOutputsOfJobs(
      kyselyOf(this.database),
      jobs.map((job) => job.id),
    )) {
      const files = byJob.get(file.job_id) ?? [];
      files.push(file);
      byJob.set(file.job_id, files);
    }
    return byJob;
  }

  files(jobId: string, role: "input" | "output"): Promise<JobFileRow[]> {
    return listJobFiles(kyselyOf(this.database), jobId, role);
  }

  /** An output file by its id (signed download links name the file, not the job). */
  async output(fileId: string): Promise<JobFileRow | undefined> {
    const file = await findJobFile(kyselyOf(this.database), fileId);
    return file?.role === "output" ? file : undefined;
  }

  /**
   * queued/active → active, the row read in the same statement, unless the account already runs its
   * plan's `maxRunningJobs` of the operation's lane (a re-delivered active job keeps running). On
   * PostgreSQL the account row is locked first, so two workers cannot both take the last place.
   */
  async start(jobId: string, operation: JobKind, now = new Date()): Promise<StartAttempt> {
    const lane = laneOf(operation);
    const cap = runningCaps[lane];
    const job = await kyselyOf(this.database)
      .transaction()
      .execute(async (trx) => {
        await lockAccountOfJob(trx, this.database.dialect, jobId);
        return startJob(trx, jobId, toIso(now), cap);
      });
    if (job)
      return { kind: "started", job, inputs: await listJobFiles(kyselyOf(this.database), jobId, "input") };
    // Not started: ended already, or the account is at its cap (read only on this path).
    const row = await findJob(kyselyOf(this.database), jobId);
    if (row === undefined || (row.status !== "queued" && row.status !== "active")) return { kind: "ended" };
    const plan = (await findAccountById(kyselyOf(this.database), row.account_id))?.plan;
    return {
      kind: "account-busy",
      cap: plan !== undefined && isPlanId(plan) ? plans[plan].maxRunningJobs[lane] : 0,
    };
  }

  async progress(jobId: string, fraction: number): Promise<void> {
    await updateJobProgress(kyselyOf(this.database), jobId, Math.max(0, Math.min(0.99, fraction)));
  }

  /** A running pipeline's steps, as its worker has them (a finished job's are left as they ended). */
  async recordSteps(jobId: string, steps: readonly JobStep[]): Promise<void> {
    await updateJobSteps(kyselyOf(this.database), jobId, JSON.stringify(steps));
  }

  /**
   * active → done or failed, at most once: the status, the outputs and the charge of a done job, and the
   * webhook delivery the job asked for, all in one transaction. A job that had already ended (settled by
   * another attempt) changes nothing and gives no delivery.
   */
  async settle(started: StartedJob, outcome: Outcome, now = new Date()): Promise<Settled | undefined> {
    const finishedAt = toIso(now);
    return kyselyOf(this.database)
      .transaction()
      .execute(async (trx) => {
        const job =
          outcome.status === "done"
            ? await finishJob(trx, started.job.id, {
                status: "done",
                finished_at: finishedAt,
                progress: 1,
                engine: outcome.work.engine,
                warnings: outcome.work.warnings?.length ? JSON.stringify(outcome.work.warnings) : null,
                report: outcome.work.report ? JSON.stringify(outcome.work.report) : null,
              })
            : await finishJob(trx, started.job.id, {
                status: "failed",
                finished_at: finishedAt,
                error_code: outcome.code,
                error_message: outcome.message,
              });
        if (!job) return undefined;
        if (outcome.status === "done") {
          await insertJobFiles(trx, filesOf(job.id, "output", outcome.outputs, finishedAt));
        }
        // A test job is never charged: the ledger records none.
        if (outcome.status === "done" && job.mode === "live") {
          await insertLedgerEntry(trx, {
            id: newId(),
            account_id: job.account_id,
            period_start: job.period_start,
            kind: "charge",
            amount: job.credits,
            job_id: job.id,
            reason: null,
            created_at: finishedAt,
          });
        }
        return { job, deliveryId: await deliveryFor(trx, job, now) };
      });
  }

  /**
   * queued/active → failed without a run to settle (a worker gave up, the janitor's deadline): the
   * reservation is released, nothing is charged, and the webhook is recorded with it.
   */
  async fail(
    jobId: string,
    code: JobErrorCode,
    message: string,
    now = new Date(),
  ): Promise<Settled | undefined> {
    return kyselyOf(this.database)
      .transaction()
      .execute(async (trx) => {
        const job = await finishJob(trx, jobId, {
          status: "failed",
          finished_at: toIso(now),
          error_code: code,
          error_message: message,
        });
        return job ? { job, deliveryId: await deliveryFor(trx, job, now) } : undefined;
      });
  }

  /**
   * queued/active → failed `canceled`, uncharged, with its webhook recorded (the same transaction as
   * `fail`). The job's status decides the race with its run: one that settled first keeps its outcome
   * (`finished`); one canceled first is settled by nobody else, and its worker's result is discarded.
   */
  async cancel(job: JobRow, now = new Date()): Promise<Cancellation> {
    const settled = await this.fail(job.id, "canceled", CANCELED_MESSAGE, now);
    if (settled)
      return {
        kind: "canceled",
        settled,
        inputs: await listJobFiles(kyselyOf(this.database), job.id, "input"),
      };
    return { kind: "finished", job: (await findJob(kyselyOf(this.database), job.id)) ?? job };
  }

  /**
   * Marks a finished job's results deleted at its owner's request (the first time is kept) and returns
   * its files still stored, for the caller to delete and then pass to `filesDeleted`. Undefined when the
   * job has not finished.
   */
  async deleteResults(job: JobRow, now = new Date()): Promise<JobFileRow[] | undefined> {
    if (job.status !== "done" && job.status !== "failed") return undefined;
    await markResultsDeleted(kyselyOf(this.database), job.id, toIso(now));
    return listStoredFiles(kyselyOf(this.database), job.id);
  }

  /** The stored objects of these files were deleted (inputs after the run, outputs after the TTL). */
  async filesDeleted(files: readonly JobFileRow[], now = new Date()): Promise<void> {
    await markJobFilesDeleted(
      kyselyOf(this.database),
      files.map((file) => file.id),
      toIso(now),
    );
  }
}

function filesOf(jobId: string, role: "input" | "output", files: readonly StoredFile[], createdAt: string) {
  return files.map((file, position) => ({
    id: newId(),
    job_id: jobId,
    role,
    position,
    name: file.name,
    size: file.size,
    content_type: file.contentType,
    storage_key: file.storageKey,
    field: file.field ?? null,
    deleted_at: null,
    created_at: createdAt,
  }));
}

/** The ended job's webhook delivery, recorded in the same transaction; undefined when it asked for none. */
function deliveryFor(trx: Db, job: JobRow, now: Date): Promise<string | undefined> {
  if (!job.webhook_url) return Promise.resolve(undefined);
  return recordWebhookDelivery(trx, { jobId: job.id, accountId: job.account_id, url: job.webhook_url }, now);
}
