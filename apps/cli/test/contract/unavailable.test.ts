import { corpusPath, postgresAdminUrl } from "@octavo/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");

describe("503 unavailable with Retry-After when the service cannot take work", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("refuses new jobs while a queue is over its backlog limit", async () => {
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      workers: false,
      env: { OCTAVO_QUEUE_MAX_WAITING: "1" },
    });
    const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    expect((await client.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    expect((await client.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    const full = await fetch(`${stack.baseUrl}/v1/rotate`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/never-fetched.pdf" }),
    });
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("60");
    expect(await full.json()).toMatchObject({ error: "unavailable" });
    // Another queue is not affected.
    expect((await client.postFiles("/v1/split", [{ path: pdf }])).status).toBe(202);
  });

  it("answers 503, not 500, while the database refuses connections", async () => {
    stack = await startStack({ database: "postgres", redis: "supervised" });
    const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    expect((await client.get("/v1/account")).status).toBe(200);
    const database = new URL(stack.config.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    try {
      // The real failure through the real seam: the database takes no connections, and the pool's
      // idle ones are closed.
      await admin.query(`alter database ${database} allow_connections false`);
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [database],
      );
      const answer = await client.get("/v1/account");
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: "unavailable" });
      expect(answer.headers.get("retry-after")).toBe("5");
    } finally {
      await admin.query(`alter database ${database} allow_connections true`);
      await admin.end();
    }
    expect((await client.get("/v1/account")).status).toBe(200);
  });
});
