import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A pipeline job's steps and their statuses, as JSON (null for a job of one operation): written when
  // the job is accepted, then by its worker as each step starts and ends.
  await db.schema.alterTable("jobs").addColumn("steps", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").dropColumn("steps").execute();
}
