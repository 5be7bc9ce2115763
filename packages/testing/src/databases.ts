import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** The machine's PostgreSQL (trust auth); tests create and drop their own database in it. */
export function postgresAdminUrl(): string {
  return process.env.OCTAVO_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/** The machine's shared Redis, used by the fleet-mode tests (the default mode supervises its own). */
export function sharedRedisUrl(): string {
  return process.env.OCTAVO_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

export interface TempResource {
  readonly url: string;
  dispose(): Promise<void>;
}

export async function createPostgresDatabase(): Promise<TempResource> {
  const name = `octavo_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async dispose() {
      const client = new pg.Client({ connectionString: postgresAdminUrl() });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export async function createTempDir(
  prefix = "octavo-test-",
): Promise<{ path: string; dispose(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

export async function createSqliteDatabase(): Promise<TempResource> {
  const dir = await createTempDir("octavo-sqlite-");
  return { url: `sqlite:${join(dir.path, "octavo.sqlite")}`, dispose: dir.dispose };
}

export type DatabaseKind = "sqlite" | "postgres";

export function createTestDatabase(kind: DatabaseKind): Promise<TempResource> {
  return kind === "sqlite" ? createSqliteDatabase() : createPostgresDatabase();
}
