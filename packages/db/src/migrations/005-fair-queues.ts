import { type Kysely, sql } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A job's place in its queue is the number of its account's unfinished jobs of the same operation ahead
  // of it: counted at every accept, so only the unfinished rows are indexed (an account may have 100,000
  // finished ones).
  await db.schema
    .createIndex("jobs_unfinished_account_operation")
    .on("jobs")
    .columns(["account_id", "operation", "created_at"])
    .where(sql<boolean>`status in ('queued', 'active')`)
    .execute();
  // The back-pressure estimates read an operation's latest run times.
  await db.schema
    .createIndex("jobs_operation_finished")
    .on("jobs")
    .columns(["operation", "finished_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_operation_finished").execute();
  await db.schema.dropIndex("jobs_unfinished_account_operation").execute();
}
