import { type ExpressionBuilder, type Insertable, sql } from "kysely";
import type { Db } from "../database.js";
import type { JobFileRow, JobRow } from "../rows.js";
import type { Database, JobFileRole, JobFilesTable, JobStatus, JobsTable, KeyMode } from "../schema/index.js";

const UNFINISHED = ["queued", "active"] as const;

/** Whose jobs a caller sees: its account's, of its key's mode (test keys see test jobs only). */
export interface JobOwner {
  accountId: string;
  mode: KeyMode;
}

/** A place in the jobs' creation order: a job's creation time, then its id for jobs of the same time. */
export interface JobPosition {
  createdAt: string;
  id: string;
}

/**
 * The jobs before `position` in creation order, as a row-value comparison: both databases read it as
 * one range of an index ending in (created_at, id), where the same test written with OR is a filter
 * on every row from one end.
 */
function createdBefore(position: JobPosition) {
  return (eb: ExpressionBuilder<Database, "jobs">) =>
    eb(eb.refTuple("created_at", "id"), "<", eb.tuple(position.createdAt, position.id));
}

export async function insertJob(
  db: Db,
  job: Insertable<JobsTable>,
  files: Insertable<JobFilesTable>[],
): Promise<void> {
  await db.insertInto("jobs").values(job).execute();
  if (files.length > 0) await db.insertInto("job_files").values(files).execute();
}

export function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findJobForAccount(db: Db, id: string, owner: JobOwner): Promise<JobRow | undefined> {
  return db
    .selectFrom("jobs")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", owner.accountId)
    .where("mode", "=", owner.mode)
    .executeTakeFirst();
}

export function listJobFiles(db: Db, jobId: string, role: JobFileRole): Promise<JobFileRow[]> {
  return db
    .selectFrom("job_files")
    .selectAll()
    .where("job_id", "=", jobId)
    .where("role", "=", role)
    .orderBy("position", "asc")
    .execute();
}

export function findJobFile(db: Db, id: string): Promise<JobFileRow | undefined> {
  return db.selectFrom("job_files").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * queued → active, or active again when a job is re-delivered after its worker died; the row as it
 * now is, read in the same statement. Undefined when the job has already ended, or, with `cap`, when its
 * account already runs as many of the cap's operations as its plan allows.
 */
export function startJob(db: Db, id: string, now: string, cap?: RunningCap): Promise<JobRow | undefined> {
  let query = db
    .updateTable("jobs")
    .set((eb) => ({
      status: "active",
      started_at: eb.fn.coalesce("started_at", eb.val(now)),
      attempts: eb("attempts", "+", 1),
    }))
    .where("id", "=", id)
    .where("status", "in", UNFINISHED);
  if (cap !== undefined) {
    // A job already active (re-delivered after its worker died) holds its place; a queued one starts only
    // while its account runs fewer than its plan's cap of the lane's operations.
    const running = sql<number>`(select count(*) from jobs as running
      where running.account_id = jobs.account_id and running.status = 'active'
      and running.operation in (${sql.join(cap.operations)}))`;
    const allowed = sql<number>`(select case accounts.plan ${sql.join(
      Object.entries(cap.byPlan).map(([plan, most]) => sql`when ${plan} then ${most}`),
      sql` `,
    )} else 0 end from accounts where accounts.id = jobs.account_id)`;
    query = query.where((eb) => eb.or([eb("status", "=", "active"), eb(running, "<", allowed)]));
  }
  return query.returningAll().executeTakeFirst();
}

/** How many jobs of some operations (a lane's) an account may run at once, by plan. */
export interface RunningCap {
  operations: readonly string[];
  byPlan: Readonly<Record<string, number>>;
}

export async function updateJobProgress(db: Db, id: string, progress: number): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ progress })
    .where("id", "=", id)
    .where("status", "=", "active")
    .execute();
}

/**
 * The one transition to a final state; the row as it now is. It only happens from queued/active, so a
 * job finished twice (a re-delivered job, a late duplicate) changes nothing the second time and gives
 * undefined.
 */
export function finishJob(
  db: Db,
  id: string,
  change: Pick<JobsTable, "status" | "finished_at"> &
    Partial<Pick<JobsTable, "error_code" | "error_message" | "engine" | "progress" | "warnings" | "report">>,
): Promise<JobRow | undefined> {
  return db
    .updateTable("jobs")
    .set(change)
    .where("id", "=", id)
    .where("status", "in", UNFINISHED)
    .returningAll()
    .executeTakeFirst();
}

/** A pipeline job's steps as its worker sees them; only while the job runs. */
export async function updateJobSteps(db: Db, id: string, steps: string): Promise<void> {
  await db.updateTable("jobs").set({ steps }).where("id", "=", id).where("status", "=", "active").execute();
}

/** A finished job's results were deleted at its owner's request; the first time is kept. */
export async function markResultsDeleted(db: Db, id: string, now: string): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ results_deleted_at: now })
    .where("id", "=", id)
    .where("status", "in", ["done", "failed"])
    .where("results_deleted_at", "is", null)
    .execute();
}

/** The job's files, inputs and outputs, whose stored objects have not been deleted yet. */
export function listStoredFiles(db: Db, jobId: string): Promise<JobFileRow[]> {
  return db
    .selectFrom("job_files")
    .selectAll()
    .where("job_id", "=", jobId)
    .where("deleted_at", "is", null)
    .execute();
}

export async function insertJobFiles(db: Db, files: Insertable<JobFilesTable>[]): Promise<void> {
  if (files.length > 0) await db.insertInto("job_files").values(files).execute();
}

export async function markJobFilesDeleted(db: Db, ids: readonly string[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("job_files").set({ deleted_at: now }).where("id", "in", ids).execute();
}

/** Credits held by the account's unfinished live jobs of a period (test jobs are never charged). */
export async function reservedCredits(db: Db, accountId: string, periodStart: string): Promise<number> {
  const row = await db
    .selectFrom("jobs")
    .select((eb) => eb.fn.sum<number | string>("credits").as("total"))
    .where("account_id", "=", accountId)
    .where("period_start", "=", periodStart)
    .where("status", "in", UNFINISHED)
    .where("mode", "=", "live")
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * The account's test jobs accepted in the period, by status, with the credits they would have cost: test
 * mode's usage, which has no ledger entries and no reservations.
 */
export async function testJobTotals(
  db: Db,
  accountId: string,
  periodStart: string,
): Promise<{ status: JobStatus; jobs: number; credits: number }[]> {
  const rows = await db
    .selectFrom("jobs")
    .select((eb) => [
      "status",
      eb.fn.countAll<number | string>().as("jobs"),
      eb.fn.sum<number | string>("credits").as("credits"),
    ])
    .where("account_id", "=", accountId)
    .where("mode", "=", "test")
    .where("period_start", "=", periodStart)
    .groupBy("status")
    .execute();
  return rows.map((row) => ({
    status: row.status,
    jobs: Number(row.jobs),
    credits: Number(row.credits ?? 0),
  }));
}

/**
 * The account's unfinished jobs of one operation, or only those accepted before `before` (by creation
 * time, then id): the jobs ahead of one in its queue (index jobs_unfinished_account_operation).
 */
export async function countUnfinishedJobs(
  db: Db,
  accountId: string,
  operation: string,
  before?: JobPosition,
): Promise<number> {
  let query = db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("account_id", "=", accountId)
    .where("operation", "=", operation)
    // Literal, as in the partial index's own condition: a bound parameter would not let the planner use it.
    .where(sql<boolean>`status in ('queued', 'active')`);
  if (before !== undefined) query = query.where(createdBefore(before));
  const row = await query.executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Start and end of the operation's latest `limit` finished jobs that ran (index jobs_operation_finished). */
export function latestRuns(
  db: Db,
  operation: string,
  limit: number,
): Promise<{ started_at: string | null; finished_at: string | null }[]> {
  return db
    .selectFrom("jobs")
    .select(["started_at", "finished_at"])
    .where("operation", "=", operation)
    .where("finished_at", "is not", null)
    .orderBy("finished_at", "desc")
    .limit(limit)
    .execute();
}

/** Stored outputs of jobs that finished before their mode's cut-off (`finishedBefore`), oldest first. */
export function findExpiredOutputs(
  db: Db,
  finishedBefore: Record<KeyMode, string>,
  limit: number,
): Promise<JobFileRow[]> {
  return db
    .selectFrom("job_files")
    .innerJoin("jobs", "jobs.id", "job_files.job_id")
    .selectAll("job_files")
    .where("job_files.role", "=", "output")
    .where("job_files.deleted_at", "is", null)
    .where((eb) =>
      eb.or(
        (["live", "test"] as const).map((mode) =>
          eb.and([eb("jobs.mode", "=", mode), eb("jobs.finished_at", "<", finishedBefore[mode])]),
        ),
      ),
    )
    .orderBy("jobs.finished_at", "asc")
    .limit(limit)
    .execute();
}

/** Stored inputs of jobs that have ended; normally deleted at once, this sweeps up after a crash. */
export function findLeftoverInputs(db: Db, limit: number): Promise<JobFileRow[]> {
  return db
    .selectFrom("job_files")
    .innerJoin("jobs", "jobs.id", "job_files.job_id")
    .selectAll("job_files")
    .where("job_files.role", "=", "input")
    .where("job_files.deleted_at", "is", null)
    .where("jobs.status", "in", ["done", "failed"])
    .limit(limit)
    .execute();
}

/** Unfinished jobs created before the cut-off: no job may stay queued or active forever. */
export function findOverdueJobs(db: Db, createdBefore: string, limit: number): Promise<JobRow[]> {
  return db
    .selectFrom("jobs")
    .selectAll()
    .where("status", "in", UNFINISHED)
    .where("created_at", "<", createdBefore)
    .limit(limit)
    .execute();
}

/** Which of an account's jobs to list; times are ISO 8601 UTC, as the rows store them. */
export interface JobListFilter {
  status?: JobStatus | undefined;
  operation?: string | undefined;
  /** Created at or after this time. */
  createdAfter?: string | undefined;
  /** Created strictly before this time. */
  createdBefore?: string | undefined;
  /** Only jobs after this one in the order (older, or as old with a smaller id): the next page. */
  after?: JobPosition | undefined;
  limit: number;
}

/**
 * The owner's jobs, newest first (creation time, then id, both descending), filtered. Served by the
 * indexes (account_id, mode[, status | operation], created_at, id) of migration 011, so a page costs the
 * same for an account of 100 jobs or 100,000 (bench/jobs/list-jobs.mjs shows the plans).
 */
export function jobsOfAccountQuery(db: Db, owner: JobOwner, filter: JobListFilter) {
  let query = db
    .selectFrom("jobs")
    .selectAll()
    .where("account_id", "=", owner.accountId)
    .where("mode", "=", owner.mode);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.operation !== undefined) query = query.where("operation", "=", filter.operation);
  if (filter.createdAfter !== undefined) query = query.where("created_at", ">=", filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where("created_at", "<", filter.createdBefore);
  if (filter.after !== undefined) query = query.where(createdBefore(filter.after));
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit);
}

export function listJobsOfAccount(db: Db, owner: JobOwner, filter: JobListFilter): Promise<JobRow[]> {
  return jobsOfAccountQuery(db, owner, filter).execute();
}

/** The outputs of many jobs in one query, by job then position. */
export async function listOutputsOfJobs(db: Db, jobIds: readonly string[]): Promise<JobFileRow[]> {
  if (jobIds.length === 0) return [];
  return db
    .selectFrom("job_files")
    .selectAll()
    .where("job_id", "in", jobIds)
    .where("role", "=", "output")
    .orderBy("job_id", "asc")
    .orderBy("position", "asc")
    .execute();
}
