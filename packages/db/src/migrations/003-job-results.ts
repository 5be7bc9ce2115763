import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // What the engine reported besides the outputs: warnings (JSON array) and a per-operation report
  // (JSON object, e.g. the compression achieved).
  await db.schema.alterTable("jobs").addColumn("warnings", "text").execute();
  await db.schema.alterTable("jobs").addColumn("report", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").dropColumn("report").execute();
  await db.schema.alterTable("jobs").dropColumn("warnings").execute();
}
