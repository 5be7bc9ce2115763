import type { Db } from "../database.js";
import type { IdempotencyRow } from "../rows.js";

export function findIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .executeTakeFirst();
}

/**
 * Binds the key to its request and the answer a retry gets, written with the job it created. False
 * when the key exists already (the primary key decides races).
 */
export async function claimIdempotencyKey(
  db: Db,
  claim: { accountId: string; key: string; fingerprint: string; status: number; body: string; now: string },
): Promise<boolean> {
  const result = await db
    .insertInto("idempotency_keys")
    .values({
      account_id: claim.accountId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      status: "done",
      response_status: claim.status,
      response_body: claim.body,
      created_at: claim.now,
    })
    .onConflict((conflict) => conflict.columns(["account_id", "key"]).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function deleteIdempotencyKey(db: Db, accountId: string, key: string): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .execute();
}

/** Keys older than the retention (24 h) are deleted by the janitor; a reused old key is a new request. */
export async function deleteIdempotencyKeysBefore(db: Db, createdBefore: string): Promise<number> {
  const result = await db
    .deleteFrom("idempotency_keys")
    .where("created_at", "<", createdBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
