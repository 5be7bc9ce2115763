import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("key", "text", (col) => col.notNull())
    .addColumn("fingerprint", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key"])
    .execute();
  await db.schema
    .createIndex("idempotency_keys_created")
    .on("idempotency_keys")
    .column("created_at")
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("job_id", "text", (col) => col.notNull().references("jobs.id"))
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("finished_at", "text")
    .execute();
  await db.schema.createIndex("webhook_deliveries_job").on("webhook_deliveries").column("job_id").execute();
  await db.schema
    .createIndex("webhook_deliveries_account_created")
    .on("webhook_deliveries")
    .columns(["account_id", "created_at"])
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("delivery_id", "text", (col) => col.notNull().references("webhook_deliveries.id"))
    .addColumn("attempt", "integer", (col) => col.notNull())
    .addColumn("started_at", "text", (col) => col.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempts_delivery")
    .on("webhook_attempts")
    .column("delivery_id")
    .execute();

  // During a rotation the old secret keeps signing for 24 hours, next to the new one.
  await db.schema.alterTable("accounts").addColumn("previous_webhook_secret", "text").execute();
  await db.schema.alterTable("accounts").addColumn("previous_webhook_secret_expires_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("previous_webhook_secret_expires_at").execute();
  await db.schema.alterTable("accounts").dropColumn("previous_webhook_secret").execute();
  for (const table of ["webhook_attempts", "webhook_deliveries", "idempotency_keys"]) {
    await db.schema.dropTable(table).execute();
  }
}
