import type { Db, JobRow } from "@octavo/db";
import {
  type JobListFilter,
  type JobOwner,
  type JobPosition,
  listJobsOfAccount,
} from "@octavo/db/repositories";

/** A cursor that is not one this service handed out (or was altered). */
export class InvalidCursorError extends Error {
  override readonly name = "InvalidCursorError";
}

/** One page of an account's jobs, newest first, and the cursor of the next one. */
export interface JobPage {
  jobs: JobRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

export type JobListQuery = Omit<JobListFilter, "after"> & { cursor?: string | undefined };

/**
 * The cursor is the last job of the page (its creation time and id), opaque to clients: the next page
 * starts after it in the order, so jobs created meanwhile (all newer) neither repeat nor shift a page.
 */
export function encodeCursor(position: JobPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString("base64url");
}

export function decodeCursor(cursor: string): JobPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2) {
      const [createdAt, id]: unknown[] = value;
      if (typeof createdAt === "string" && typeof id === "string" && !Number.isNaN(Date.parse(createdAt)))
        return { createdAt, id };
    }
  } catch {
    // not base64url JSON: refused below
  }
  throw new InvalidCursorError("cursor: not a cursor this API returned; pass nextCursor unchanged");
}

/** A page of the owner's jobs: one row more than asked tells whether another page follows. */
export async function listJobs(db: Db, owner: JobOwner, query: JobListQuery): Promise<JobPage> {
  const { cursor, limit, ...filter } = query;
  const rows = await listJobsOfAccount(db, owner, {
    ...filter,
    after: cursor === undefined ? undefined : decodeCursor(cursor),
    limit: limit + 1,
  });
  const jobs = rows.slice(0, limit);
  const last = jobs.at(-1);
  const hasMore = rows.length > limit;
  return {
    jobs,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}
