import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { kyselyOf } from "../src/database.js";
import { createDatabase } from "../src/index.js";
import { withStatementCache } from "../src/statement-cache.js";

describe("withStatementCache", () => {
  const opened: SQLite.Database[] = [];
  const open = (): SQLite.Database => {
    const database = new SQLite(":memory:");
    opened.push(database);
    database.exec("create table items (id integer primary key, name text)");
    database.exec("insert into items (name) values ('a'), ('b'), ('c')");
    return database;
  };
  afterEach(() => {
    for (const database of opened.splice(0)) if (database.open) database.close();
  });

  it("prepares each SQL text once", () => {
    const cached = withStatementCache(open());
    const first = cached.prepare("select name from items where id = ?");
    expect(cached.prepare("select name from items where id = ?")).toBe(first);
    expect(cached.prepare("select name from items where id > ?")).not.toBe(first);
    expect(first.all([2])).toEqual([{ name: "b" }]);
    expect(first.all([3])).toEqual([{ name: "c" }]);
  });

  it("gives a statement that is still being read to nobody else", () => {
    const cached = withStatementCache(open());
    const text = "select name from items order by id";
    const reading = cached.prepare(text).iterate([]);
    expect(reading.next().value).toEqual({ name: "a" });
    const other = cached.prepare(text);
    expect(other.all([])).toHaveLength(3);
    expect([...reading]).toEqual([{ name: "b" }, { name: "c" }]);
    // Once the read is over, the cached statement is shared again.
    expect(cached.prepare(text)).not.toBe(other);
    expect(cached.prepare(text)).toBe(cached.prepare(text));
  });

  it("keeps at most `limit` statements, dropping the oldest", () => {
    const cached = withStatementCache(open(), 2);
    const first = cached.prepare("select 1");
    cached.prepare("select 2");
    expect(cached.prepare("select 1")).toBe(first);
    cached.prepare("select 3");
    expect(cached.prepare("select 1")).not.toBe(first);
  });

  it("serves Kysely, and sees a schema change", async () => {
    const db = new Kysely<{ items: { id: number; name: string } }>({
      dialect: new SqliteDialect({ database: withStatementCache(open()) }),
    });
    const byId = (id: number) => db.selectFrom("items").selectAll().where("id", "=", id).execute();
    expect(await byId(1)).toEqual([{ id: 1, name: "a" }]);
    await sql`alter table items add column size integer default 7`.execute(db);
    expect(await byId(2)).toEqual([{ id: 2, name: "b", size: 7 }]);
    await db.destroy();
  });
});

describe("SQLite transactions beside another process", () => {
  it("wait for the other process's write instead of failing (begin immediate)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "octavo-sqlite-"));
    const url = `sqlite:${join(dir, "octavo.sqlite")}`;
    const handle = createDatabase(url);
    try {
      await kyselyOf(handle).schema.createTable("items").addColumn("name", "text").execute();
      // Another process (the CLI beside a running server) holds the write lock for half a second.
      const writer = spawn(
        process.execPath,
        [
          "-e",
          `const db = new (require("better-sqlite3"))(${JSON.stringify(join(dir, "octavo.sqlite"))});
           db.pragma("busy_timeout = 5000");
           db.exec("begin immediate; insert into items values ('theirs')");
           process.stdout.write("locked\\n");
           Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
           db.exec("commit");`,
        ],
        { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
      );
      await new Promise<void>((resolve) => writer.stdout.once("data", () => resolve()));
      // Read, then write, in one transaction: with a deferred begin this fails with SQLITE_BUSY.
      await kyselyOf(handle)
        .transaction()
        .execute(async (trx) => {
          await sql`select count(*) from items`.execute(trx);
          await sql`insert into items values ('ours')`.execute(trx);
        });
      await new Promise((resolve) => writer.once("exit", resolve));
      const names = await sql<{ name: string }>`select name from items order by name`.execute(
        kyselyOf(handle),
      );
      expect(names.rows.map((row) => row.name)).toEqual(["ours", "theirs"]);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
