import type { Insertable } from "kysely";
import type { Db } from "../database.js";
import type { ApiKeyRow } from "../rows.js";
import type { ApiKeysTable } from "../schema/index.js";

export async function insertApiKey(db: Db, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto("api_keys").values(row).execute();
}

/** The key row for a hash, revoked or not: the caller tells the two apart. */
export function findApiKeyByHash(db: Db, hash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom("api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
}

export function findApiKeyById(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom("api_keys").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom("api_keys")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
}

export async function revokeApiKey(db: Db, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records use at most once a minute per key, so authentication is not a write on every request. */
export async function touchApiKey(db: Db, id: string, now: string, notSince: string): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ last_used_at: now })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", notSince)]))
    .execute();
}
