import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // GET /v1/jobs lists an account's jobs newest first, by creation time then id (the cursor), and may
  // filter on status or operation: one index per shape, each ending in the order, so a page reads only
  // its own rows however many jobs the account has.
  await db.schema
    .createIndex("jobs_account_created_id")
    .on("jobs")
    .columns(["account_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_status_created_id")
    .on("jobs")
    .columns(["account_id", "status", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_operation_created_id")
    .on("jobs")
    .columns(["account_id", "operation", "created_at", "id"])
    .execute();
  // The first of these covers everything this one served.
  await db.schema.dropIndex("jobs_account_created").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("jobs_account_created")
    .on("jobs")
    .columns(["account_id", "created_at"])
    .execute();
  await db.schema.dropIndex("jobs_account_operation_created_id").execute();
  await db.schema.dropIndex("jobs_account_status_created_id").execute();
  await db.schema.dropIndex("jobs_account_created_id").execute();
}
