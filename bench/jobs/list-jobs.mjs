#!/usr/bin/env node
// GET /v1/jobs for an account with 100,000 jobs, on SQLite and PostgreSQL: the query plan of each
// shape of request (showing which index serves it) and the time of a page, p50 and p95 over repeated
// requests, through @octavo/core's JobService.list and the Job view the API sends.
//
//   node bench/jobs/list-jobs.mjs [--jobs 100000] [--runs 200]
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("../../", import.meta.url));
const load = (path) => import(pathToFileURL(join(root, path)).href);
const { values } = parseArgs({ options: { jobs: { type: "string" }, runs: { type: "string" } } });
const JOBS = Number(values.jobs ?? 100_000);
const RUNS = Number(values.runs ?? 200);

const { createTestDatabase } = await load("packages/testing/dist/index.js");
const { createDatabase, migrateToLatest } = await load("packages/db/dist/index.js");
const { AccountService, JobService, jobView } = await load("packages/core/dist/index.js");
const { operationIds } = await load("packages/contracts/dist/index.js");
const { jobsOfAccountQuery, kyselyOf } = await load("packages/db/dist/repositories/index.js");
// kysely as @octavo/db resolves it, for EXPLAIN and ANALYZE.
const kysely = createRequire(join(root, "packages/db/package.json")).resolve("kysely");
const { sql } = await import(pathToFileURL(kysely).href);

const links = { link: async () => ({ url: "http://x", expiresAt: new Date().toISOString() }) };
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** 100,000 jobs of one account over 90 days (and 20,000 of another), in the mix a busy account has. */
async function fill(handle, accountId, otherId) {
  const start = Date.parse("2026-08-01T00:00:00.000Z");
  const row = (account, index, total) => {
    const created = new Date(start + Math.floor((index / total) * 90 * 86_400_000)).toISOString();
    const failed = index % 13 === 0;
    return {
      id: randomUUID(),
      account_id: account,
      operation: operationIds[index % operationIds.length],
      options: "{}",
      status: index >= total - 5 ? "queued" : failed ? "failed" : "done",
      progress: 1,
      credits: 1,
      period_start: `${created.slice(0, 7)}-01`,
      error_code: failed ? "invalid_input" : null,
      error_message: failed ? "bad file" : null,
      engine: null,
      warnings: null,
      report: null,
      webhook_url: null,
      request_id: null,
      created_at: created,
      started_at: created,
      finished_at: created,
    };
  };
  for (const [account, total] of [
    [accountId, JOBS],
    [otherId, JOBS / 5],
  ]) {
    for (let offset = 0; offset < total; offset += 1000) {
      const batch = Array.from({ length: Math.min(1000, total - offset) }, (_, i) =>
        row(account, offset + i, total),
      );
      await kyselyOf(handle).insertInto("jobs").values(batch).execute();
    }
  }
  await sql`analyze`.execute(kyselyOf(handle));
}

async function plan(kind, handle, query) {
  const compiled = query.compile();
  const explain = kind === "sqlite" ? "explain query plan " : "explain ";
  const rows = await sql.raw(explain + inline(compiled)).execute(kyselyOf(handle));
  return rows.rows.map((r) => r.detail ?? r["QUERY PLAN"]).join(" | ");
}

/** The compiled SQL with its parameters written in, for EXPLAIN. */
function inline({ sql: text, parameters }) {
  let index = 0;
  return text.replace(/\?|\$\d+/g, (match) => {
    const value = match === "?" ? parameters[index++] : parameters[Number(match.slice(1)) - 1];
    return typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
  });
}

for (const kind of ["sqlite", "postgres"]) {
  const resource = await createTestDatabase(kind);
  const handle = createDatabase(resource.url);
  try {
    await migrateToLatest(handle);
    const accounts = new AccountService(handle, "bench-secret-key-0123456789-abcdefghijkl");
    const { accountId } = await accounts.createAccount("bench@example.com", "business");
    const { accountId: otherId } = await accounts.createAccount("other@example.com", "business");
    const t0 = Date.now();
    await fill(handle, accountId, otherId);
    console.log(
      `\n${kind}: ${JOBS} jobs of one account, ${JOBS / 5} of another (filled in ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
    const jobs = new JobService(handle, { enqueueJob: async () => undefined });
    const owner = { accountId, mode: "live" };

    // A cursor deep in the list: the last job of page 2,500 of 20.
    const deep = await jobs.list(owner, { limit: 100, createdBefore: "2026-10-01T00:00:00.000Z" });
    const shapes = {
      "first page": {},
      "status=failed": { status: "failed" },
      "operation=merge": { operation: "merge" },
      "createdAfter + createdBefore": {
        createdAfter: "2026-09-01T00:00:00.000Z",
        createdBefore: "2026-09-15T00:00:00.000Z",
      },
      "cursor (a later page)": { cursor: deep.nextCursor },
      "status=queued (5 jobs)": { status: "queued" },
    };
    const last = deep.jobs.at(-1);
    const after = { createdAt: last.created_at, id: last.id };
    for (const [name, filter] of Object.entries(shapes)) {
      const times = [];
      for (let run = 0; run < RUNS; run += 1) {
        const started = process.hrtime.bigint();
        const page = await jobs.list(owner, { limit: 20, ...filter });
        await Promise.all(page.jobs.map((job) => jobView(job, undefined, links, new Date())));
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      times.sort((a, b) => a - b);
      // The repository's own query for this request (a cursor is the position of the job it names).
      const { cursor, ...rest } = filter;
      const query = jobsOfAccountQuery(kyselyOf(handle), owner, {
        ...rest,
        ...(cursor ? { after } : {}),
        limit: 21,
      });
      const p50 = percentile(times, 50).toFixed(2).padStart(6);
      const p95 = percentile(times, 95).toFixed(2).padStart(6);
      console.log(
        `  ${name.padEnd(30)} p50 ${p50} ms  p95 ${p95} ms  plan: ${await plan(kind, handle, query)}`,
      );
    }
  } finally {
    await handle.close();
    await resource.dispose();
  }
}
