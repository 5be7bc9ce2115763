import { type JobKind, laneOf } from "@octavo/contracts";
import type { DatabaseHandle } from "@octavo/db";
import { countUnfinishedJobs, kyselyOf, latestRuns } from "@octavo/db/repositories";

/** What the queues say now (@octavo/queue's JobProducer and the worker count, in the API). */
export interface QueueGauge {
  /** Jobs waiting in the operation's queue, every account's. */
  waiting(operation: JobKind): Promise<number>;
  /** Jobs the operation's workers run at once, all together (at least 1). */
  slots(operation: JobKind): Promise<number>;
}

export interface BacklogLimits {
  /** An account's own waiting jobs of an operation may take this long to run. */
  accountSeconds: number;
  /** All the waiting jobs of an operation may take this long to run. */
  queueSeconds: number;
}

/** Under the limits, or over one: `seconds` the waiting jobs would take, `retryAfterSeconds` until under. */
export type BacklogVerdict =
  | { over: false }
  | { over: "account" | "queue"; seconds: number; retryAfterSeconds: number };

/** Until an operation has this many finished jobs, its lane's typical run time stands in for their median. */
const MIN_SAMPLES = 5;
const SAMPLES = 50;
const TYPICAL_SECONDS = { light: 1, heavy: 10 } as const;
const RUN_TIMES_CACHED_MS = 30_000;
/** Counting the workers of a queue lists Redis's clients: done at most every 5 s per queue. */
const SLOTS_CACHED_MS = 5_000;

/**
 * Back-pressure in time, not in count: how long the jobs waiting before a new one would take to run, from
 * the operation's median run time (its latest finished jobs) and the slots of the workers taking its queue.
 * An account's own backlog is bounded (its next jobs get 429), and so is the whole queue's (503); each
 * refusal says when to retry.
 */
export class BacklogEstimator {
  private readonly runTimes = new Map<JobKind, { seconds: number; until: number }>();
  private readonly slotCounts = new Map<JobKind, { slots: number; until: number }>();

  constructor(
    private readonly database: DatabaseHandle,
    private readonly gauge: QueueGauge,
    private readonly limits: BacklogLimits,
  ) {}

  async check(accountId: string, operation: JobKind): Promise<BacklogVerdict> {
    const [perJob, slots, waiting, ahead] = await Promise.all([
      this.secondsPerJob(operation),
      this.slots(operation),
      this.gauge.waiting(operation),
      countUnfinishedJobs(kyselyOf(this.database), accountId, operation),
    ]);
    const secondsFor = (jobs: number) => (jobs * perJob) / slots;
    const verdict = (over: "account" | "queue", seconds: number, limit: number): BacklogVerdict => ({
      over,
      seconds,
      retryAfterSeconds: Math.max(1, Math.ceil(seconds - limit)),
    });
    // The new job counts: it is what would wait.
    const queueSeconds = secondsFor(waiting + 1);
    if (queueSeconds > this.limits.queueSeconds)
      return verdict("queue", queueSeconds, this.limits.queueSeconds);
    const accountSeconds = secondsFor(ahead + 1);
    if (accountSeconds > this.limits.accountSeconds)
      return verdict("account", accountSeconds, this.limits.accountSeconds);
    return { over: false };
  }

  private async slots(operation: JobKind, now = Date.now()): Promise<number> {
    const cached = this.slotCounts.get(operation);
    if (cached !== undefined && cached.until > now) return cached.slots;
    const slots = Math.max(1, await this.gauge.slots(operation));
    this.slotCounts.set(operation, { slots, until: now + SLOTS_CACHED_MS });
    return slots;
  }

  /** The median run time of the operation's latest finished jobs, read at most every 30 s. */
  async secondsPerJob(operation: JobKind, now = Date.now()): Promise<number> {
    const cached = this.runTimes.get(operation);
    if (cached !== undefined && cached.until > now) return cached.seconds;
    const runs = (await latestRuns(kyselyOf(this.database), operation, SAMPLES)).flatMap((run) =>
      run.started_at === null || run.finished_at === null
        ? []
        : [(Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000],
    );
    const seconds = runs.length < MIN_SAMPLES ? TYPICAL_SECONDS[laneOf(operation)] : median(runs);
    this.runTimes.set(operation, { seconds, until: now + RUN_TIMES_CACHED_MS });
    return seconds;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
