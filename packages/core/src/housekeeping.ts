import { testModeLimits } from "@octavo/contracts";
import type { DatabaseHandle, JobFileRow, JobRow } from "@octavo/db";
import {
  deleteDashboardSessionsExpiredBefore,
  deleteIdempotencyKeysBefore,
  findExpiredOutputs,
  findLeftoverInputs,
  findOverdueJobs,
  kyselyOf,
} from "@octavo/db/repositories";
import { IDEMPOTENCY_RETENTION_MS } from "./idempotency.js";
import { toIso } from "./time.js";

/** What the janitor looks for in the database, and the records it prunes. */
export class Housekeeping {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * Stored outputs whose result TTL has passed, oldest first: `ttlSeconds` after their job finished, or
   * for a test job the shorter of that and test mode's hour.
   */
  expiredOutputs(now: Date, ttlSeconds: number, limit: number): Promise<JobFileRow[]> {
    const before = (seconds: number) => toIso(new Date(now.getTime() - seconds * 1000));
    const testSeconds = Math.min(ttlSeconds, testModeLimits.resultTtlSeconds);
    return findExpiredOutputs(
      kyselyOf(this.database),
      { live: before(ttlSeconds), test: before(testSeconds) },
      limit,
    );
  }

  /** Stored inputs of jobs that have ended: normally deleted at once, these were left by a crash. */
  leftoverInputs(limit: number): Promise<JobFileRow[]> {
    return findLeftoverInputs(kyselyOf(this.database), limit);
  }

  /** Unfinished jobs created before the cut-off: no job may stay queued or active forever. */
  overdueJobs(createdBefore: Date, limit: number): Promise<JobRow[]> {
    return findOverdueJobs(kyselyOf(this.database), toIso(createdBefore), limit);
  }

  /** Idempotency keys past their retention and dashboard sessions past their expiry. */
  async pruneKeysAndSessions(now: Date): Promise<void> {
    await deleteIdempotencyKeysBefore(
      kyselyOf(this.database),
      toIso(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)),
    );
    await deleteDashboardSessionsExpiredBefore(kyselyOf(this.database), toIso(now));
  }
}
