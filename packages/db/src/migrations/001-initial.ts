import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("email", "text", (col) => col.notNull().unique())
    .addColumn("plan", "text", (col) => col.notNull())
    .addColumn("webhook_secret", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("prefix", "text", (col) => col.notNull())
    .addColumn("hash", "text", (col) => col.notNull().unique())
    .addColumn("label", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_account").on("api_keys").column("account_id").execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("operation", "text", (col) => col.notNull())
    .addColumn("options", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("progress", "real", (col) => col.notNull().defaultTo(0))
    .addColumn("credits", "integer", (col) => col.notNull())
    .addColumn("period_start", "text", (col) => col.notNull())
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("engine", "text")
    .addColumn("webhook_url", "text")
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .execute();
  await db.schema
    .createIndex("jobs_account_created")
    .on("jobs")
    .columns(["account_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("jobs_account_period_status")
    .on("jobs")
    .columns(["account_id", "period_start", "status"])
    .execute();
  await db.schema.createIndex("jobs_status").on("jobs").column("status").execute();

  await db.schema
    .createTable("job_files")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("job_id", "text", (col) => col.notNull().references("jobs.id"))
    .addColumn("role", "text", (col) => col.notNull())
    .addColumn("position", "integer", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("size", "integer", (col) => col.notNull())
    .addColumn("content_type", "text", (col) => col.notNull())
    .addColumn("storage_key", "text", (col) => col.notNull())
    .addColumn("deleted_at", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addUniqueConstraint("job_files_job_role_position", ["job_id", "role", "position"])
    .execute();
  await db.schema
    .createIndex("job_files_role_deleted_created")
    .on("job_files")
    .columns(["role", "deleted_at", "created_at"])
    .execute();

  await db.schema
    .createTable("credit_ledger")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("account_id", "text", (col) => col.notNull().references("accounts.id"))
    .addColumn("period_start", "text", (col) => col.notNull())
    .addColumn("kind", "text", (col) => col.notNull())
    .addColumn("amount", "integer", (col) => col.notNull())
    .addColumn("job_id", "text", (col) => col.references("jobs.id"))
    .addColumn("reason", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    // A job is charged at most once, however many times its completion is delivered.
    .addUniqueConstraint("credit_ledger_job_kind", ["job_id", "kind"])
    .execute();
  await db.schema
    .createIndex("credit_ledger_account_period")
    .on("credit_ledger")
    .columns(["account_id", "period_start"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["credit_ledger", "job_files", "jobs", "api_keys", "accounts"]) {
    await db.schema.dropTable(table).execute();
  }
}
