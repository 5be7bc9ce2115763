import type { Database as Sqlite, Statement } from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/**
 * better-sqlite3 with each SQL text prepared once: Kysely prepares every query it runs, and preparing
 * took as much of the main thread as running them (profile of a 1,000-job rotate burst: 1.3 s each).
 * The texts come from the code's query builders, so they are few; `limit` bounds the rest (an `in` list
 * of varying length), oldest out first. A statement still being read (a streamed result) is not shared.
 * SQLite re-prepares a cached statement by itself when the schema changes.
 */
export function withStatementCache(database: Sqlite, limit = 256): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) return cached;
      const statement = database.prepare(sql);
      if (cached === undefined) {
        const oldest = statements.keys().next();
        if (statements.size >= limit && !oldest.done) statements.delete(oldest.value);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Kysely begins SQLite transactions with a plain (deferred) `begin`: a transaction that reads, then
 * writes, while another process (the CLI beside a running server) has written since, fails at once with
 * SQLITE_BUSY, whatever busy_timeout says. `begin immediate` takes the write lock first and waits for it.
 */
export function withImmediateTransactions(database: SqliteDatabase): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare: (sql) => database.prepare(sql === "begin" ? "begin immediate" : sql),
  };
}
