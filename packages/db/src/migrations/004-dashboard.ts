import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // argon2id (PHC string). Null for accounts made by the operator CLI: they cannot sign in to the dashboard.
  await db.schema.alterTable("accounts").addColumn("password_hash", "text").execute();

  // The id is the SHA-256 (hex) of the session token; the token itself is never stored.
  await db.schema
    .createTable("dashboard_sessions")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("expires_at", "text", (col) => col.notNull())
    .addColumn("last_seen_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_account")
    .on("dashboard_sessions")
    .column("account_id")
    .execute();
  // The janitor deletes expired sessions by expires_at.
  await db.schema
    .createIndex("dashboard_sessions_expires")
    .on("dashboard_sessions")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("dashboard_sessions").execute();
  await db.schema.alterTable("accounts").dropColumn("password_hash").execute();
}
