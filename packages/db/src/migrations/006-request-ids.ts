import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The X-Request-Id of the request that created the job: every log line about the job carries it, so
  // a job can be followed from its request to its webhook. Older jobs have none.
  await db.schema.alterTable("jobs").addColumn("request_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").dropColumn("request_id").execute();
}
