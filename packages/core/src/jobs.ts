import { getOperation, type JobErrorCode, type OperationId, type PlanId, plans } from "@octavo/contracts";
import {
  type DatabaseHandle,
  findAccountById,
  findJob,
  finishJob,
  insertJob,
  insertJobFiles,
  insertLedgerEntry,
  type JobFileRow,
  type JobRow,
  listJobFiles,
  markJobActive,
  updateJobProgress,
} from "@octavo/db";
import { sql } from "kysely";
import { billingPeriodOf, newId, toIso } from "./time.js";
import { usageOf } from "./usage.js";

export interface StoredFile {
  name: string;
  size: number;
  contentType: string;
  storageKey: string;
}

/** What the engine said about a finished job besides its outputs. */
export interface CompletedWork {
  engine: string;
  warnings?: readonly string[];
  /** Operation-specific facts, e.g. the compression achieved. */
  report?: Record<string, unknown>;
}

export interface NewJob {
  /** Chosen before the upload, so inputs are stored under the job's own keys. */
  id: string;
  accountId: string;
  plan: PlanId;
  operation: OperationId;
  options: Record<string, unknown>;
  webhookUrl: string | undefined;
  inputs: StoredFile[];
}

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

/** The job lifecycle in the database: acceptance with a credit reservation, transitions, settlement. */
export class JobService {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * The job row and its credit reservation, in one transaction. On a Free plan the reservation is
   * checked against the month's allowance while the account row is locked (PostgreSQL) or the single
   * writer holds the database (SQLite), so concurrent requests cannot overrun it.
   */
  async create(job: NewJob, now = new Date()): Promise<JobRow> {
    const credits = getOperation(job.operation).credits;
    const createdAt = toIso(now);
    return this.database.db.transaction().execute(async (trx) => {
      if (this.database.dialect === "postgres") {
        await sql`select id from accounts where id = ${job.accountId} for update`.execute(trx);
      }
      if (plans[job.plan].overageUsdPer1000Credits === null) {
        const usage = await usageOf(trx, job.accountId, job.plan, now);
        if (usage.creditsRemaining < credits)
          throw new QuotaExceededError(usage.creditsRemaining, credits, usage.periodEnd);
      }
      const row = {
        id: job.id,
        account_id: job.accountId,
        operation: job.operation,
        options: JSON.stringify(job.options),
        status: "queued" as const,
        progress: 0,
        credits,
        period_start: billingPeriodOf(now).start,
        error_code: null,
        error_message: null,
        engine: null,
        warnings: null,
        report: null,
        webhook_url: job.webhookUrl ?? null,
        created_at: createdAt,
        started_at: null,
        finished_at: null,
      };
      await insertJob(
        trx,
        row,
        job.inputs.map((input, position) => ({
          id: newId(),
          job_id: job.id,
          role: "input" as const,
          position,
          name: input.name,
          size: input.size,
          content_type: input.contentType,
          storage_key: input.storageKey,
          deleted_at: null,
          created_at: createdAt,
        })),
      );
      return { ...row, attempts: 0 };
    });
  }

  find(jobId: string): Promise<JobRow | undefined> {
    return findJob(this.database.db, jobId);
  }

  files(jobId: string, role: "input" | "output"): Promise<JobFileRow[]> {
    return listJobFiles(this.database.db, jobId, role);
  }

  /** queued/active → active. Undefined when the job already ended (a late or duplicate delivery). */
  async start(jobId: string, now = new Date()): Promise<{ job: JobRow; inputs: JobFileRow[] } | undefined> {
    if (!(await markJobActive(this.database.db, jobId, toIso(now)))) return undefined;
    const job = await findJob(this.database.db, jobId);
    if (!job) return undefined;
    return { job, inputs: await listJobFiles(this.database.db, jobId, "input") };
  }

  async progress(jobId: string, fraction: number): Promise<void> {
    await updateJobProgress(this.database.db, jobId, Math.max(0, Math.min(0.99, fraction)));
  }

  /** active → done, the outputs recorded and the credits charged, all at most once. */
  async complete(
    jobId: string,
    outputs: StoredFile[],
    result: CompletedWork,
    now = new Date(),
  ): Promise<boolean> {
    const finishedAt = toIso(now);
    return this.database.db.transaction().execute(async (trx) => {
      const changed = await finishJob(trx, jobId, {
        status: "done",
        finished_at: finishedAt,
        progress: 1,
        engine: result.engine,
        warnings: result.warnings?.length ? JSON.stringify(result.warnings) : null,
        report: result.report ? JSON.stringify(result.report) : null,
      });
      if (!changed) return false;
      const job = await findJob(trx, jobId);
      if (!job) return false;
      await insertJobFiles(
        trx,
        outputs.map((output, position) => ({
          id: newId(),
          job_id: jobId,
          role: "output" as const,
          position,
          name: output.name,
          size: output.size,
          content_type: output.contentType,
          storage_key: output.storageKey,
          deleted_at: null,
          created_at: finishedAt,
        })),
      );
      await insertLedgerEntry(trx, {
        id: newId(),
        account_id: job.account_id,
        period_start: job.period_start,
        kind: "charge",
        amount: job.credits,
        job_id: jobId,
        reason: null,
        created_at: finishedAt,
      });
      return true;
    });
  }

  /** queued/active → failed; the reservation is released because nothing is charged. */
  fail(jobId: string, code: JobErrorCode, message: string, now = new Date()): Promise<boolean> {
    return finishJob(this.database.db, jobId, {
      status: "failed",
      finished_at: toIso(now),
      error_code: code,
      error_message: message,
    });
  }

  async accountPlan(accountId: string): Promise<PlanId | undefined> {
    const account = await findAccountById(this.database.db, accountId);
    return account?.plan as PlanId | undefined;
  }
}
