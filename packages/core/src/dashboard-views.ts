import type { JobErrorCode, JobKind, Output, PlanId } from "@octavo/contracts";
import type { DatabaseHandle, JobFileRow, JobStatus } from "@octavo/db";
import {
  creditsPerDay,
  type JobOwner,
  kyselyOf,
  listJobsOfAccount,
  listOutputsOfJobs,
} from "@octavo/db/repositories";
import type { DownloadLinks } from "./download-links.js";
import { billingPeriodOf } from "./time.js";
import { jobView } from "./views.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The most jobs recentJobs returns at once. */
export const MAX_RECENT_JOBS = 100;

/** One UTC day of the credits chart. */
export interface CreditsChartDay {
  /** YYYY-MM-DD. */
  day: string;
  credits: number;
}

/**
 * Every UTC day of the current month (`billingPeriodOf(now)`), in order, with the credits charged that
 * day; zero when nothing was (future days too). The days add up to usageOf's creditsUsed. A job is
 * charged on the day it finished, to the month it was accepted in, so a job accepted on a month's last
 * evening and finished after midnight counts on that month's last day here. The plan does not change
 * the chart; the parameter is there so the page need not change when a per-plan view comes.
 */
export async function creditsChart(
  database: DatabaseHandle,
  accountId: string,
  _plan: PlanId,
  now: Date,
): Promise<CreditsChartDay[]> {
  const period = billingPeriodOf(now);
  const days: CreditsChartDay[] = [];
  for (let time = Date.parse(period.start); time < Date.parse(period.end); time += DAY_MS) {
    days.push({ day: new Date(time).toISOString().slice(0, 10), credits: 0 });
  }
  const byDay = new Map(days.map((entry) => [entry.day, entry]));
  for (const { day, credits } of await creditsPerDay(kyselyOf(database), accountId, period.start)) {
    const slot = byDay.get(day) ?? days.at(-1);
    if (slot) slot.credits += credits;
  }
  return days;
}

export interface RecentJob {
  id: string;
  operation: JobKind;
  status: JobStatus;
  /** From 0 to 1; 1 when done. */
  progress: number;
  /** What the job costs if it succeeds; a failed job is not charged. */
  credits: number;
  /** Present when failed. */
  errorCode: JobErrorCode | null;
  errorMessage: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** finishedAt − startedAt, or null while either is missing. */
  durationMs: number | null;
  /** The results of a done job; an output deleted after the result TTL has `expired: true` and no url. */
  outputs: Output[];
}

/** The owner's jobs, newest first (at most MAX_RECENT_JOBS), with download links for their outputs. */
export async function recentJobs(
  database: DatabaseHandle,
  links: DownloadLinks,
  owner: JobOwner,
  options: { status?: JobStatus | undefined; limit: number; now: Date },
): Promise<RecentJob[]> {
  const limit = Math.min(MAX_RECENT_JOBS, Math.max(1, Math.floor(options.limit) || 1));
  const db = kyselyOf(database);
  const jobs = await listJobsOfAccount(db, owner, { status: options.status, limit });
  const outputsByJob = new Map<string, JobFileRow[]>();
  for (const file of await listOutputsOfJobs(
    db,
    jobs.map((job) => job.id),
  )) {
    const list = outputsByJob.get(file.job_id) ?? [];
    list.push(file);
    outputsByJob.set(file.job_id, list);
  }
  return Promise.all(
    jobs.map(async (job): Promise<RecentJob> => {
      const view = await jobView(job, outputsByJob.get(job.id) ?? [], links, options.now);
      const started = job.started_at ? Date.parse(job.started_at) : Number.NaN;
      const finished = job.finished_at ? Date.parse(job.finished_at) : Number.NaN;
      const durationMs = Number.isFinite(started) && Number.isFinite(finished) ? finished - started : null;
      return {
        id: view.id,
        operation: job.operation as JobKind,
        status: job.status,
        progress: view.progress,
        credits: view.credits,
        errorCode: (view.error as JobErrorCode | undefined) ?? null,
        errorMessage: view.message ?? null,
        createdAt: view.createdAt,
        startedAt: job.started_at,
        finishedAt: job.finished_at,
        durationMs,
        outputs: view.outputs ?? [],
      };
    }),
  );
}
