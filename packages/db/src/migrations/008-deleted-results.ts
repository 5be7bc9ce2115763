import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // When the caller deleted the job's results (DELETE /v1/jobs/{id}), so that its outputs read
  // "deleted" rather than merely expired.
  await db.schema.alterTable("jobs").addColumn("results_deleted_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").dropColumn("results_deleted_at").execute();
}
