import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql, type Transaction } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import { migrationProvider } from "./migrations/index.js";
import type { Database } from "./schema/index.js";
import { withImmediateTransactions, withStatementCache } from "./statement-cache.js";

export type DialectName = "sqlite" | "postgres";
/** Repositories take either the database or an open transaction. */
export type Db = Kysely<Database> | Transaction<Database>;

/**
 * An open database. Apps hold it and hand it to @octavo/core's services; only core and the
 * repositories reach the query builder behind it (`kyselyOf`, exported at @octavo/db/repositories,
 * which Biome keeps out of the apps), so no query is written outside this package.
 */
export interface DatabaseHandle {
  readonly dialect: DialectName;
  close(): Promise<void>;
}

const queryBuilders = new WeakMap<DatabaseHandle, Kysely<Database>>();

function handleOf(db: Kysely<Database>, dialect: DialectName): DatabaseHandle {
  const handle: DatabaseHandle = { dialect, close: () => db.destroy() };
  queryBuilders.set(handle, db);
  return handle;
}

/** The query builder behind a handle made by createDatabase. */
export function kyselyOf(handle: DatabaseHandle): Kysely<Database> {
  const db = queryBuilders.get(handle);
  if (db === undefined) throw new Error("not a database handle made by createDatabase");
  return db;
}

/**
 * `sqlite:<path>` (the single-machine default) or a `postgres://` URL (a fleet). Nothing else in the
 * code base knows which one is behind the handle.
 */
export interface DatabaseOptions {
  onIdleClientError?: (error: Error) => void;
  /** Called with every statement's SQL, once it has run (tests count statements with it). */
  onQuery?: (sql: string) => void;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const log = options.onQuery
    ? (event: LogEvent) => {
        if (event.level === "query") options.onQuery?.(event.query.sql);
      }
    : undefined;
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const database = new SQLite(path);
    // WAL lets the CLI and a running server share the file; busy_timeout waits out short locks. It comes
    // first: switching to WAL takes a lock too, and fails at once while another process writes.
    database.pragma("busy_timeout = 5000");
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma("foreign_keys = ON");
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: withImmediateTransactions(withStatementCache(database)) }),
      ...(log ? { log } : {}),
    });
    return handleOf(db, "sqlite");
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection that the server closes (restart, failover, admin command) is reported here;
    // the pool drops it and opens a new one on demand. Unhandled, it would crash the process.
    pool.on("error", (error) => options.onIdleClientError?.(error));
    // A connection in use (a transaction between two statements) that the server closes reports the error
    // on its client, where the pool does not listen: unhandled, it would crash the process too. Its holder
    // sees the error at its next statement, and the pool drops the connection when it is released.
    pool.on("connect", (client) => client.on("error", () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
    return handleOf(db, "postgres");
  }
  throw new Error("database URL must start with sqlite: or postgres://");
}

/** Applies every pending migration; safe to run on every start and from several processes. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({ db: kyselyOf(handle), provider: migrationProvider });
  // Nothing to do, nothing locked: the migration itself runs in a write transaction, which on SQLite
  // fails at once (SQLITE_BUSY) while another process, such as a running server, writes.
  if ((await migrator.getMigrations()).every((migration) => migration.executedAt !== undefined)) return [];
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? [])
    .filter((result) => result.status === "Success")
    .map((result) => result.migrationName);
}

/** Readiness: one round trip. */
export async function pingDatabase(handle: DatabaseHandle): Promise<void> {
  await sql`select 1`.execute(kyselyOf(handle));
}
