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

  /** Stored outputs of jobs that finished before the cut-off (their result TTL has passed), oldest first. */
  expiredOutputs(finishedBefore: Date, limit: number): Promise<JobFileRow[]> {
    return findExpiredOutputs(kyselyOf(this.database), toIso(finishedBefore), limit);
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
