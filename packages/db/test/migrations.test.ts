import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase, type DatabaseHandle, kyselyOf } from "../src/database.js";
import { migrationProvider } from "../src/migrations/index.js";

/**
 * A rolling upgrade runs each release's migrations while the release before it still serves (DEVELOPERS.md,
 * "Migrations"), so a migration's `up` only adds: no table or column the previous release reads or writes goes,
 * is renamed or changes type, and a column added to a table that exists is nullable or has a default, so the
 * previous release's inserts still succeed. Dropping and renaming wait for the release after.
 */

type Schema = Map<string, Map<string, { dataType: string; isNullable: boolean; hasDefaultValue: boolean }>>;

async function schemaOf(db: Kysely<unknown>): Promise<Schema> {
  const tables = await db.introspection.getTables();
  return new Map(
    tables.map((table) => [table.name, new Map(table.columns.map((column) => [column.name, column]))]),
  );
}

/** What a migration took from or changed under the release before it, one line each. */
function breakingChanges(before: Schema, after: Schema): string[] {
  const found: string[] = [];
  for (const [table, columns] of before) {
    const now = after.get(table);
    if (now === undefined) {
      found.push(`table ${table} dropped or renamed`);
      continue;
    }
    for (const [name, column] of columns) {
      const still = now.get(name);
      if (still === undefined) found.push(`column ${table}.${name} dropped or renamed`);
      else if (still.dataType !== column.dataType)
        found.push(`column ${table}.${name} changed type from ${column.dataType} to ${still.dataType}`);
      else if (column.isNullable && !still.isNullable) found.push(`column ${table}.${name} made NOT NULL`);
    }
    for (const [name, column] of now) {
      if (!columns.has(name) && !column.isNullable && !column.hasDefaultValue) {
        found.push(`column ${table}.${name} added NOT NULL without a default`);
      }
    }
  }
  return found;
}

describe.each<DatabaseKind>(["sqlite", "postgres"])("migrations on %s", (kind) => {
  let resource: TempResource | undefined;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  async function migrator(): Promise<{ db: Kysely<unknown>; migrator: Migrator }> {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url);
    const db = kyselyOf(handle) as unknown as Kysely<unknown>;
    return { db, migrator: new Migrator({ db, provider: migrationProvider }) };
  }

  it("each only adds to what the release before it reads and writes", async () => {
    const { db, migrator: steps } = await migrator();
    const names = (await steps.getMigrations()).map((migration) => migration.name);
    expect(names.length).toBeGreaterThanOrEqual(10);
    let before = await schemaOf(db);
    const found: string[] = [];
    for (const name of names) {
      const { error } = await steps.migrateTo(name);
      if (error) throw error;
      const after = await schemaOf(db);
      found.push(...breakingChanges(before, after).map((change) => `${name}: ${change}`));
      before = after;
    }
    expect(found).toEqual([]);
  });

  it("would name a migration that drops, renames or adds a required column", async () => {
    const { db, migrator: steps } = await migrator();
    const { error } = await steps.migrateToLatest();
    if (error) throw error;
    const before = await schemaOf(db);
    await db.schema.alterTable("jobs").dropColumn("steps").execute();
    await db.schema.alterTable("job_files").renameColumn("field", "upload_field").execute();
    await db.schema
      .alterTable("accounts")
      .addColumn("region", "text", (column) => column.notNull())
      .execute();
    expect(breakingChanges(before, await schemaOf(db)).sort()).toEqual([
      "column accounts.region added NOT NULL without a default",
      "column job_files.field dropped or renamed",
      "column jobs.steps dropped or renamed",
    ]);
  });
});
