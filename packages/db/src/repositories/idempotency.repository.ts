import type { Selectable } from "kysely";
import type { Db } from "../database.js";
import type { IdempotencyKeysTable } from "../schema/index.js";

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

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

/** Claims the key for a request being processed. False when the key exists already (the primary key decides races). */
export async function claimIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
  fingerprint: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .insertInto("idempotency_keys")
    .values({
      account_id: accountId,
      key,
      fingerprint,
      status: "processing",
      response_status: null,
      response_body: null,
      created_at: now,
    })
    .onConflict((conflict) => conflict.columns(["account_id", "key"]).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function completeIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({ status: "done", response_status: status, response_body: body })
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .execute();
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
