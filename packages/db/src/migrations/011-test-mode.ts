import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Test-mode keys (svc_test_…): a key's mode is stored with its hash, and each job keeps the mode of the
  // key that made it. Every key and job before this migration is live.
  await db.schema
    .alterTable("api_keys")
    .addColumn("mode", "text", (column) => column.notNull().defaultTo("live"))
    .execute();
  await db.schema
    .alterTable("jobs")
    .addColumn("mode", "text", (column) => column.notNull().defaultTo("live"))
    .execute();
  // A key lists its own mode's jobs only: migration 007's listing indexes, with the mode after the
  // account, so a page of test jobs reads only test jobs however many live ones the account has.
  await db.schema
    .createIndex("jobs_account_mode_created_id")
    .on("jobs")
    .columns(["account_id", "mode", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_mode_status_created_id")
    .on("jobs")
    .columns(["account_id", "mode", "status", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_mode_operation_created_id")
    .on("jobs")
    .columns(["account_id", "mode", "operation", "created_at", "id"])
    .execute();
  // These cover everything 007's served.
  await db.schema.dropIndex("jobs_account_created_id").execute();
  await db.schema.dropIndex("jobs_account_status_created_id").execute();
  await db.schema.dropIndex("jobs_account_operation_created_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("jobs_account_operation_created_id")
    .on("jobs")
    .columns(["account_id", "operation", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_status_created_id")
    .on("jobs")
    .columns(["account_id", "status", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("jobs_account_created_id")
    .on("jobs")
    .columns(["account_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("jobs_account_mode_operation_created_id").execute();
  await db.schema.dropIndex("jobs_account_mode_status_created_id").execute();
  await db.schema.dropIndex("jobs_account_mode_created_id").execute();
  await db.schema.alterTable("jobs").dropColumn("mode").execute();
  await db.schema.alterTable("api_keys").dropColumn("mode").execute();
}
