import type { Insertable } from "kysely";
import type { Db } from "../database.js";
import type { DashboardSessionRow } from "../rows.js";
import type { DashboardSessionsTable } from "../schema/index.js";

export async function insertDashboardSession(db: Db, row: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto("dashboard_sessions").values(row).execute();
}

/** The session whose id (the token's SHA-256) this is, expired or not: the caller checks expires_at. */
export function findDashboardSession(db: Db, id: string): Promise<DashboardSessionRow | undefined> {
  return db.selectFrom("dashboard_sessions").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Records use and slides the expiry forward. */
export async function touchDashboardSession(
  db: Db,
  id: string,
  lastSeenAt: string,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable("dashboard_sessions")
    .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
    .where("id", "=", id)
    .execute();
}

export async function deleteDashboardSession(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom("dashboard_sessions").where("id", "=", id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Sessions that expired before the date (at or before it, they are unusable already); for the janitor. */
export async function deleteDashboardSessionsExpiredBefore(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom("dashboard_sessions")
    .where("expires_at", "<", before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
