import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type DatabaseHandle,
  deleteIdempotencyKey,
  findIdempotencyKey,
} from "@octavo/db";
import { toIso } from "./time.js";

/** How long a key stays bound to its first request (Stripe keeps them at least 24 hours too). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export type IdempotencyOutcome =
  | { kind: "proceed" }
  | { kind: "replay"; status: number; body: string }
  | { kind: "conflict"; reason: string };

/**
 * Idempotency-Key: the first request with a key runs and its answer is kept; a retry with the same
 * key and the same request gets that answer again and creates nothing; the same key with another
 * request, or while the first is still running, is a conflict.
 */
export class IdempotencyService {
  constructor(private readonly database: DatabaseHandle) {}

  async begin(
    accountId: string,
    key: string,
    fingerprint: string,
    now = new Date(),
  ): Promise<IdempotencyOutcome> {
    const { db } = this.database;
    let existing = await findIdempotencyKey(db, accountId, key);
    if (existing && Date.parse(existing.created_at) < now.getTime() - IDEMPOTENCY_RETENTION_MS) {
      await deleteIdempotencyKey(db, accountId, key);
      existing = undefined;
    }
    if (!existing) {
      if (await claimIdempotencyKey(db, accountId, key, fingerprint, toIso(now))) return { kind: "proceed" };
      existing = await findIdempotencyKey(db, accountId, key); // another request claimed it first
      if (!existing)
        return {
          kind: "conflict",
          reason: "A request with this Idempotency-Key is being processed; retry in a moment.",
        };
    }
    if (existing.fingerprint !== fingerprint) {
      return {
        kind: "conflict",
        reason: "This Idempotency-Key was used with a different request; use a new key for a new request.",
      };
    }
    if (existing.status !== "done" || existing.response_status === null || existing.response_body === null) {
      return {
        kind: "conflict",
        reason: "A request with this Idempotency-Key is still being processed; retry in a moment.",
      };
    }
    return { kind: "replay", status: existing.response_status, body: existing.response_body };
  }

  complete(accountId: string, key: string, status: number, body: string): Promise<void> {
    return completeIdempotencyKey(this.database.db, accountId, key, status, body);
  }

  /** A request that was refused keeps nothing: the same key may be retried with a corrected request. */
  abandon(accountId: string, key: string): Promise<void> {
    return deleteIdempotencyKey(this.database.db, accountId, key);
  }
}
