import type { Kysely } from "kysely";

// Frozen in time: a migration never changes once released; later changes are new migrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An input's named upload field (Sign PDF's `certificate`, Verify signatures' `roots`), or
  // `secret-options` for the sealed secret options; null for the documents to process. The files keep
  // role `input`, so they are deleted with the other inputs.
  await db.schema.alterTable("job_files").addColumn("field", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("job_files").dropColumn("field").execute();
}
