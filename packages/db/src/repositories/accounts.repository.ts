import type { Insertable } from "kysely";
import type { Db } from "../database.js";
import type { AccountRow } from "../rows.js";
import type { AccountsTable } from "../schema/index.js";

export async function insertAccount(db: Db, row: Insertable<AccountsTable>): Promise<void> {
  await db.insertInto("accounts").values(row).execute();
}

export function findAccountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findAccountByEmail(db: Db, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("email", "=", email).executeTakeFirst();
}

export async function updateAccountPlan(db: Db, id: string, plan: string): Promise<boolean> {
  const result = await db.updateTable("accounts").set({ plan }).where("id", "=", id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function rotateWebhookSecret(
  db: Db,
  id: string,
  sealedNew: string,
  sealedPrevious: string,
  previousExpiresAt: string,
): Promise<void> {
  await db
    .updateTable("accounts")
    .set({
      webhook_secret: sealedNew,
      previous_webhook_secret: sealedPrevious,
      previous_webhook_secret_expires_at: previousExpiresAt,
    })
    .where("id", "=", id)
    .execute();
}

/** Sets (or, with null, removes) the dashboard password of an account. */
export async function setAccountPasswordHash(
  db: Db,
  accountId: string,
  hash: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable("accounts")
    .set({ password_hash: hash })
    .where("id", "=", accountId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether the database holds any account at all. */
export async function anyAccountExists(db: Db): Promise<boolean> {
  return (await db.selectFrom("accounts").select("id").limit(1).executeTakeFirst()) !== undefined;
}
