#!/usr/bin/env node
// Fairness between accounts, through the whole service, in one run. `octavo start` (single machine:
// SQLite, the supervised redis-server, local disk) on a fresh data dir:
//
//   1. light: one account has a burst of rotate jobs (default 2,000) queued; another account then sends
//      one rotate. How long it waits to start, beside its own run time; and how many of the burst's jobs
//      were still waiting when it came (first come, first served would have run them all first).
//   2. heavy: one Business account has hostile heavy jobs running and queued (compressions of a file
//      whose content never ends, stopped at a 30 s job timeout); another account then sends a merge,
//      and a compression of an ordinary file. How long each waits to start.
//
// The burst is put in the queue the way the API does it (core's JobService.accept, its input in the
// store), not by HTTP: a Business account may send 300 requests a minute, so 2,000 jobs of one account
// can only pile up over minutes. Run after `npm test` or `npm run setup`:
//
//   node bench/fairness.mjs [--burst 2000] [--hostile 10]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  businessAccount,
  freePort,
  onePagePdf,
  postJob,
  startService,
  stopService,
  untilReady,
} from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus");
const { values } = parseArgs({
  options: { burst: { type: "string", default: "2000" }, hostile: { type: "string", default: "10" } },
});
const burstJobs = Number(values.burst);
const hostileJobs = Number(values.hostile);
const load = (path) => import(pathToFileURL(join(root, path)).href);

const work = mkdtempSync(join(tmpdir(), "octavo-bench-fair-"));
const file = (name) => join(work, name);
onePagePdf(file("one.pdf"));
const { nestedFormsPdf } = await load("packages/testing/dist/index.js");
// 2^22 strokes in nested forms: no engine gets through it before the job's timeout.
writeFileSync(file("endless.pdf"), nestedFormsPdf(22));
const ordinary = join(corpus, "scanned", "pikepdf_congress.pdf");

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: file("data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
  // The hostile jobs hold their slots this long.
  OCTAVO_JOB_TIMEOUT_SECONDS: "30",
};
const busy = businessAccount(env, "busy@example.com");
const other = businessAccount(env, "other@example.com");

/** Form A from a list of file paths. */
const post = (path, files, options, key) =>
  postJob(
    base,
    key,
    path,
    files.map((source) => ({ path: source, name: "in.pdf" })),
    options,
  );

const server = startService(env);
const { loadConfig } = await load("packages/config/dist/index.js");
const { openQueueRuntime } = await load("apps/cli/dist/runtime.js");
const { kyselyOf } = await load("packages/db/dist/repositories/index.js");
const { newId } = await load("packages/core/dist/index.js");
const { validateOptions } = await load("packages/contracts/dist/index.js");
let runtime;

const rowsOf = (ids) =>
  kyselyOf(runtime.database)
    .selectFrom("jobs")
    .select(["id", "status", "created_at", "started_at", "finished_at"])
    .where("id", "in", ids)
    .execute();

async function ended(id, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await rowsOf([id]);
    if (row && (row.status === "done" || row.status === "failed")) return row;
    if (Date.now() > deadline) throw new Error(`job ${id} did not end`);
    await delay(50);
  }
}

const at = (time) => Date.parse(time);
const results = {};
try {
  await untilReady(base);
  // The same database, redis-server (reused on the data dir) and store as the service, once it is up.
  runtime = await openQueueRuntime(loadConfig(env), "bench");
  await ended(await post("/v1/rotate", [file("one.pdf")], { angle: 90 }, other.apiKey)); // warm-up

  // 1. Light.
  const pdf = readFileSync(file("one.pdf"));
  // Completed with their defaults, as the API stores them.
  const options = validateOptions("rotate", { angle: 90 }).value;
  const burst = [];
  for (let index = 0; index < burstJobs; index += 1) {
    const id = newId();
    const storageKey = `jobs/${id}/inputs/0`;
    await runtime.store.put(storageKey, pdf);
    await runtime.jobs.accept({
      id,
      accountId: busy.accountId,
      plan: "business",
      operation: "rotate",
      options,
      credits: 1,
      webhookUrl: undefined,
      inputs: [{ name: "one.pdf", size: pdf.length, contentType: "application/pdf", storageKey }],
    });
    burst.push(id);
  }
  const lone = await ended(await post("/v1/rotate", [file("one.pdf")], { angle: 90 }, other.apiKey));
  const burstRows = await rowsOf(burst);
  const stillQueued = burstRows.filter((row) => !row.started_at || at(row.started_at) > at(lone.created_at));
  results.light = {
    burstJobs,
    burstJobsWaitingWhenTheOtherCame: stillQueued.length,
    burstJobsThatStartedBeforeIt: stillQueued.filter(
      (row) => row.started_at && at(row.started_at) < at(lone.started_at),
    ).length,
    otherJobWaitMs: at(lone.started_at) - at(lone.created_at),
    otherJobRunMs: at(lone.finished_at) - at(lone.started_at),
  };
  console.error(JSON.stringify(results.light));
  for (const id of burst) await ended(id);

  // 2. Heavy.
  const hostile = [];
  for (let index = 0; index < hostileJobs; index += 1)
    hostile.push(await post("/v1/compress", [file("endless.pdf")], undefined, busy.apiKey));
  await delay(2_000); // the hostile jobs hold the heavy slots
  const merge = await ended(
    await post("/v1/merge", [file("one.pdf"), file("one.pdf")], undefined, other.apiKey),
  );
  const compress = await ended(await post("/v1/compress", [ordinary], undefined, other.apiKey));
  const hostileRows = await Promise.all(hostile.map((id) => ended(id)));
  results.heavy = {
    hostileJobs,
    hostileFailedWith: [...new Set(hostileRows.map((row) => row.status))],
    mergeWaitMs: at(merge.started_at) - at(merge.created_at),
    compressWaitMs: at(compress.started_at) - at(compress.created_at),
  };
  console.error(JSON.stringify(results.heavy));
} finally {
  await stopService(server);
  await runtime?.close();
}

console.log(JSON.stringify({ machine: `${process.platform} ${process.arch}`, ...results }, null, 2));
rmSync(work, { recursive: true, force: true });
