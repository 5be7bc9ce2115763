import type { Insertable } from "kysely";
import type { Db } from "../database.js";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "../rows.js";
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookDeliveryStatus } from "../schema/index.js";

export async function insertWebhookDelivery(db: Db, row: Insertable<WebhookDeliveriesTable>): Promise<void> {
  await db.insertInto("webhook_deliveries").values(row).execute();
}

export function findWebhookDelivery(db: Db, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findWebhookDeliveriesOfJob(db: Db, jobId: string): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("job_id", "=", jobId)
    .orderBy("created_at")
    .execute();
}

export function listWebhookAttempts(db: Db, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("delivery_id", "=", deliveryId)
    .orderBy("attempt")
    .execute();
}

/** One attempt, and the delivery's running totals, recorded together. */
export async function recordWebhookAttempt(
  db: Db,
  attempt: Insertable<WebhookAttemptsTable>,
  outcome: { status: WebhookDeliveryStatus; finishedAt: string | null },
): Promise<void> {
  await db.insertInto("webhook_attempts").values(attempt).execute();
  await db
    .updateTable("webhook_deliveries")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      last_status_code: attempt.status_code ?? null,
      last_error: attempt.error ?? null,
      status: outcome.status,
      finished_at: outcome.finishedAt,
    }))
    .where("id", "=", attempt.delivery_id)
    .execute();
}

export function findUnfinishedWebhookDeliveries(
  db: Db,
  createdBefore: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("status", "=", "pending")
    .where("created_at", "<", createdBefore)
    .limit(limit)
    .execute();
}

/** Deletes up to `limit` deliveries that ended before `finishedBefore`, with their attempts. */
export async function deleteWebhookDeliveriesFinishedBefore(
  db: Db,
  finishedBefore: string,
  limit: number,
): Promise<number> {
  const ids = (
    await db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("status", "!=", "pending")
      .where("finished_at", "<", finishedBefore)
      .limit(limit)
      .execute()
  ).map((row) => row.id);
  if (ids.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).execute();
    const result = await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

/** The account's deliveries, newest first. */
export function listWebhookDeliveriesOfAccount(
  db: Db,
  accountId: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** The attempts of many deliveries in one query, by delivery then attempt number. */
export async function listWebhookAttemptsOfDeliveries(
  db: Db,
  deliveryIds: readonly string[],
): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("delivery_id", "asc")
    .orderBy("attempt", "asc")
    .execute();
}

/** The delivery if it belongs to the account; undefined for another account's (or an unknown) id. */
export function findWebhookDeliveryOfAccount(
  db: Db,
  accountId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("id", "=", deliveryId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}
