import type { DatabaseHandle, KeyMode } from "@octavo/db";
import { deleteIdempotencyKey, findIdempotencyKey, type JobOwner, kyselyOf } from "@octavo/db/repositories";

/** How long a key stays bound to its first request (Stripe keeps them at least 24 hours too). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export type IdempotencyOutcome =
  | { kind: "proceed" }
  | { kind: "replay"; status: number; body: string }
  | { kind: "conflict"; reason: string };

/**
 * The key as stored: a test key's keys under a prefix no header can send (the header takes printable
 * ASCII only), so a test request never replays a live one's answer, nor the other way round.
 */
export function storedIdempotencyKey(mode: KeyMode, key: string): string {
  return mode === "live" ? key : `\u001ftest:${key}`;
}

/** A request whose Idempotency-Key another request claimed while this one was being read. */
export class IdempotencyConflictError extends Error {
  override readonly name = "IdempotencyConflictError";
  constructor(readonly key: string) {
    super(`the Idempotency-Key ${key} was claimed by another request`);
  }
}

/**
 * Idempotency-Key: the first request with a key creates its job, and the key is bound to that
 * request and its answer in the job's own transaction (JobService.accept). A retry with the same key
 * and the same request gets that answer again and creates nothing; the same key with another request
 * is a conflict. A refused request binds nothing, so its key may be used again.
 */
export class IdempotencyService {
  constructor(private readonly database: DatabaseHandle) {}

  async lookup(
    owner: JobOwner,
    key: string,
    fingerprint: string,
    now = new Date(),
  ): Promise<IdempotencyOutcome> {
    const db = kyselyOf(this.database);
    const stored = storedIdempotencyKey(owner.mode, key);
    const existing = await findIdempotencyKey(db, owner.accountId, stored);
    if (!existing) return { kind: "proceed" };
    if (Date.parse(existing.created_at) < now.getTime() - IDEMPOTENCY_RETENTION_MS) {
      await deleteIdempotencyKey(db, owner.accountId, stored);
      return { kind: "proceed" };
    }
    if (existing.fingerprint !== fingerprint) {
      return {
        kind: "conflict",
        reason: "This Idempotency-Key was used with a different request; use a new key for a new request.",
      };
    }
    if (existing.response_status === null || existing.response_body === null) {
      // A key claimed by an older version of octavo that is still being processed.
      return {
        kind: "conflict",
        reason: "A request with this Idempotency-Key is still being processed; retry in a moment.",
      };
    }
    return { kind: "replay", status: existing.response_status, body: existing.response_body };
  }
}
