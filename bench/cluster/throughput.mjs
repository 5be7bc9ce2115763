#!/usr/bin/env node
// Jobs per second for a burst of merge jobs through the whole service (HTTP upload, storage, job row,
// queue, worker, sandboxed engine, storage), with one worker process and with two, in both modes,
// in one invocation on the same files:
//   single:  SQLite, the redis-server octavo supervises, local disk (the `npm start` defaults)
//   cluster: PostgreSQL, the machine's shared Redis, an S3 server (s3rver, on loopback)
// Each configuration runs one `octavo api` process and N `octavo worker --queues merge` processes.
// Run after `npm test` or `npm run setup`, with PostgreSQL and Redis running:
//
//   node bench/cluster/throughput.mjs [--jobs 200] [--in-flight 8] [--worker-concurrency N] [--merge-jobs N]
//
// --worker-concurrency sets OCTAVO_WORKER_CONCURRENCY of each worker process (default: the CPUs);
// --merge-jobs the merge queue's own concurrency (default: twice that, as for every light queue).
// `--worker-concurrency 1 --merge-jobs 1` gives each worker process one job at a time, one core's worth.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, machineBusySeconds, median, treeCpuSeconds } from "../support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "200" },
    "in-flight": { type: "string", default: "8" },
    "worker-concurrency": { type: "string" },
    "merge-jobs": { type: "string" },
  },
});
const jobCount = Number(values.jobs);
const inFlight = Number(values["in-flight"]);
const workerConcurrency = values["worker-concurrency"];
const mergeJobs = values["merge-jobs"];
const queues = mergeJobs ? `merge=${mergeJobs},webhooks` : "merge,webhooks";
const cli = join(root, "apps", "cli", "dist", "main.js");
const dist = (pkg) => join(root, "packages", pkg, "dist", "index.js");
const { loadConfig } = await import(dist("config"));
const { createPostgresDatabase, s3Env, sharedRedisUrl, startS3Server } = await import(dist("testing"));
const { openRuntime } = await import(join(root, "apps", "cli", "dist", "runtime.js"));
const { kyselyOf } = await import(join(root, "packages", "db", "dist", "repositories", "index.js"));

const inputs = ["sample-a.pdf", "sample-b.pdf"].map((name) => ({
  name,
  blob: new Blob([readFileSync(join(root, "examples", name))]),
}));

function start(args, env) {
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log += chunk;
  });
  child.log = () => log;
  return child;
}

async function until(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

/** The shared services of one mode; `close()` removes what it created. */
async function modeEnv(mode, work) {
  const base = { ...process.env, OCTAVO_DATA_DIR: join(work, "data"), OCTAVO_LOG_LEVEL: "info" };
  if (mode === "single") return { env: base, close: async () => undefined };
  const database = await createPostgresDatabase();
  const s3 = await startS3Server({ bucket: "bench" });
  return {
    env: {
      ...base,
      OCTAVO_DATABASE_URL: database.url,
      OCTAVO_REDIS_URL: sharedRedisUrl(),
      OCTAVO_QUEUE_PREFIX: `bench-${randomBytes(4).toString("hex")}`,
      ...s3Env(s3),
      OCTAVO_SECRET_KEY: randomBytes(32).toString("hex"),
    },
    close: async () => {
      await s3.close();
      await database.dispose();
    },
  };
}

async function postMerge(base, apiKey) {
  const form = new FormData();
  for (const input of inputs) form.append("file", input.blob, input.name);
  const answer = await fetch(`${base}/v1/merge`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  if (answer.status !== 202)
    throw new Error(`POST /v1/merge answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()).id;
}

async function measure(mode, workerProcesses) {
  const work = mkdtempSync(join(tmpdir(), "octavo-bench-cluster-"));
  const shared = await modeEnv(mode, work);
  const port = await freePort();
  const env = { ...shared.env, OCTAVO_PORT: String(port) };
  // Opened first, so the database is migrated before the processes start; used to read the job rows.
  // The AWS SDK reads S3 credentials from the environment, in this process as in the nodes.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID ?? "",
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY ?? "",
  });
  const runtime = await openRuntime(loadConfig(env), "bench");
  const processes = [];
  try {
    const api = start(["api"], env);
    processes.push(api);
    const base = `http://127.0.0.1:${port}`;
    await until("the API", () =>
      fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    );
    for (let index = 0; index < workerProcesses; index += 1) {
      const worker = start(
        ["worker", "--queues", queues],
        workerConcurrency ? { ...env, OCTAVO_WORKER_CONCURRENCY: workerConcurrency } : env,
      );
      processes.push(worker);
      await until("a worker", () => worker.log().includes('"msg":"workers started"'));
    }
    // A fresh Business account per configuration (300 requests a minute: the burst fits).
    const { apiKey } = await runtime.accounts.createAccount(
      `bench-${randomBytes(4).toString("hex")}@example.com`,
      "business",
    );
    const finished = async (ids) => {
      const rows = await kyselyOf(runtime.database)
        .selectFrom("jobs")
        .select(["status", "created_at", "started_at", "finished_at"])
        .where("id", "in", ids)
        .where("status", "in", ["done", "failed"])
        .execute();
      return rows;
    };
    // Warm-up: module loads and the first sandboxes, not measured.
    const warm = await Promise.all(Array.from({ length: 4 }, () => postMerge(base, apiKey)));
    await until("the warm-up jobs", async () => (await finished(warm)).length === warm.length);

    const ids = [];
    // CPU seconds of the API's and the workers' process trees (sandboxes and qpdf included), and of
    // the whole machine (the rest: PostgreSQL, Redis, the S3 server and this client).
    const cpuNow = () => ({
      machine: machineBusySeconds(),
      api: treeCpuSeconds(api.pid),
      workers: processes.slice(1).reduce((sum, worker) => sum + treeCpuSeconds(worker.pid), 0),
    });
    const cpuBefore = cpuNow();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < jobCount) {
          next += 1;
          ids.push(await postMerge(base, apiKey));
        }
      }),
    );
    const submittedMs = performance.now() - started;
    let rows = [];
    await until(
      "every job to end",
      async () => {
        rows = await finished(ids);
        return rows.length === ids.length;
      },
      600_000,
    );
    const elapsedMs = performance.now() - started;
    const cpuAfter = cpuNow();
    const spent = (role) => cpuAfter[role] - cpuBefore[role];
    const perJobMs = (seconds) => Math.round((seconds * 1000) / ids.length);
    const failed = rows.filter((row) => row.status !== "done").length;
    return {
      mode,
      workerProcesses,
      jobs: ids.length,
      failed,
      seconds: Number((elapsedMs / 1000).toFixed(1)),
      jobsPerSecond: Number(((ids.length / elapsedMs) * 1000).toFixed(2)),
      submitSeconds: Number((submittedMs / 1000).toFixed(1)),
      coresBusy: Number((spent("machine") / (elapsedMs / 1000)).toFixed(2)),
      // The most jobs a second this machine could run at this CPU cost per job, every core busy.
      cpuBoundJobsPerSecond: Number(((availableParallelism() * ids.length) / spent("machine")).toFixed(2)),
      cpuMsPerJob: {
        api: perJobMs(spent("api")),
        workers: perJobMs(spent("workers")),
        rest: perJobMs(spent("machine") - spent("api") - spent("workers")),
      },
      medianRunMs: Math.round(
        median(rows.map((row) => Date.parse(row.finished_at) - Date.parse(row.started_at))),
      ),
    };
  } finally {
    // Workers first: in single mode the API process supervises the redis-server they use.
    for (const child of processes.reverse()) {
      const exited = new Promise((resolve) =>
        child.exitCode !== null ? resolve() : child.once("exit", resolve),
      );
      child.kill("SIGTERM");
      await Promise.race([exited, delay(30_000).then(() => child.kill("SIGKILL"))]);
    }
    await runtime.close();
    await shared.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const results = [];
for (const mode of ["single", "cluster"]) {
  for (const workerProcesses of [1, 2]) {
    const result = await measure(mode, workerProcesses);
    console.error(JSON.stringify(result));
    results.push(result);
  }
}
const rate = (mode, n) => results.find((r) => r.mode === mode && r.workerProcesses === n)?.jobsPerSecond;
const summary = {
  jobsPerRun: jobCount,
  inFlight,
  workerConcurrency: workerConcurrency ? Number(workerConcurrency) : "CPUs",
  mergeJobsPerWorker: mergeJobs ? Number(mergeJobs) : "twice the worker concurrency",
  input: "examples/sample-a.pdf + examples/sample-b.pdf per job",
  results,
  twoOverOne: {
    single: Number((rate("single", 2) / rate("single", 1)).toFixed(2)),
    cluster: Number((rate("cluster", 2) / rate("cluster", 1)).toFixed(2)),
  },
  clusterOverSingle: {
    one: Number((rate("cluster", 1) / rate("single", 1)).toFixed(2)),
    two: Number((rate("cluster", 2) / rate("single", 2)).toFixed(2)),
  },
};
console.log(JSON.stringify(summary, null, 2));
mkdirSync(join(root, "bench", "results"), { recursive: true });
const suffix = `${workerConcurrency ? `-c${workerConcurrency}` : ""}${mergeJobs ? `-m${mergeJobs}` : ""}`;
writeFileSync(
  join(root, "bench", "results", `cluster-throughput${suffix}.json`),
  `${JSON.stringify(summary, null, 2)}\n`,
);
