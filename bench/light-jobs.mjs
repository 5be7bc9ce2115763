#!/usr/bin/env node
// What a light job costs through the whole service, beside the raw engine, in one run on one machine.
// `octavo start` (single machine: SQLite, the supervised redis-server, local disk) on a fresh data dir:
//
//   1. throughput: a burst of rotate jobs of a 1-page PDF from several Business accounts, from the
//      first POST to the last job done; beside the same rotation with the qpdf CLI, two at a time;
//   2. latency: merge of two 10-page PDFs, POST to done with `?wait=`, one job at a time; beside the
//      raw qpdf CLI merge of the same files;
//   3. mixed load: while light jobs are queued, an OCR job (3-page scan) and a Word-to-PDF job are
//      sent; how long each waits to start. Then the other way: a rotate sent behind queued OCR jobs.
//
// Run after `npm test` or `npm run setup`:
//
//   node bench/light-jobs.mjs [--jobs 1000] [--accounts 10] [--merges 15] [--queued 500]
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import {
  businessAccount,
  freePort,
  median,
  onePagePdf,
  postJob,
  startService,
  stopService,
  untilReady,
} from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus");
const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000" },
    accounts: { type: "string", default: "10" },
    merges: { type: "string", default: "15" },
    queued: { type: "string", default: "500" },
    "in-flight": { type: "string", default: "16" },
  },
});
const burstJobs = Number(values.jobs);
const accountCount = Number(values.accounts);
const mergeRuns = Number(values.merges);
const queuedLight = Number(values.queued);
const inFlight = Number(values["in-flight"]);
const run = promisify(execFile);
const round = (value, digits = 0) => Number(value.toFixed(digits));

const work = mkdtempSync(join(tmpdir(), "octavo-bench-light-"));
const file = (name) => join(work, name);
onePagePdf(file("one.pdf"));
const mergeInputs = [
  ["general/govdocs_error_set_1_316267.pdf", "a.pdf"],
  ["general/samplefiles_GeoTopo-komprimiert.pdf", "b.pdf"],
].map(([source, name]) => {
  execFileSync("qpdf", ["--empty", "--pages", join(corpus, source), "1-10", "--", file(name)]);
  return { path: file(name), name };
});
const scan = join(corpus, "scanned", "paperless_multi-page-images.pdf");
const docx = join(corpus, "office", "pydocx_having-images.docx");

/** `count` tasks, `parallel` at a time; resolves when all are done. */
async function pooled(count, parallel, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await task(index);
      }
    }),
  );
}

// --- The raw engine ----------------------------------------------------------------------------
async function qpdfRotations(count) {
  mkdirSync(file("qpdf-rotate"));
  const started = performance.now();
  await pooled(count, 2, (index) =>
    run("qpdf", [file("one.pdf"), file(`qpdf-rotate/${index}.pdf`), "--rotate=+90:1-z"]),
  );
  return (count / (performance.now() - started)) * 1000;
}

function qpdfMerges(runs) {
  const times = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    execFileSync("qpdf", [
      "--empty",
      "--pages",
      ...mergeInputs.map((input) => input.path),
      "--",
      file(`qpdf-merge-${index}.pdf`),
    ]);
    times.push(performance.now() - started);
  }
  return median(times);
}

// --- The service -------------------------------------------------------------------------------
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: file("data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
};
const keys = [];
for (let index = 0; index < accountCount; index += 1) {
  keys.push(businessAccount(env, `bench-${index}@example.com`).apiKey);
}
let nextKey = 0;
/** Accounts in turn, so each stays under its plan's requests per minute. */
const anyKey = () => keys[nextKey++ % keys.length];

async function post(path, files, options, key = anyKey()) {
  return { id: await postJob(base, key, path, files, options), key };
}

async function job({ id, key }, waitSeconds = 0) {
  const answer = await fetch(`${base}/v1/jobs/${id}${waitSeconds ? `?wait=${waitSeconds}` : ""}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (answer.status !== 200) throw new Error(`GET job answered ${answer.status}: ${await answer.text()}`);
  return answer.json();
}

async function untilEnded(created, timeoutMs = 1_200_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await job(created, 20);
    if (found.status === "done" || found.status === "failed") return found;
    if (Date.now() > deadline) throw new Error(`job ${created.id} did not end`);
  }
}

const rotate = (key) => post("/v1/rotate", [{ path: file("one.pdf"), name: "one.pdf" }], { angle: 90 }, key);

const server = startService(env);
// Opened after the accounts were made (the database is migrated); reads the job rows, so waiting for a
// burst to end costs no API requests (each plan has its requests per minute).
const { loadConfig } = await import(join(root, "packages", "config", "dist", "index.js"));
const { openRuntime } = await import(join(root, "apps", "cli", "dist", "runtime.js"));
const { kyselyOf } = await import(join(root, "packages", "db", "dist", "repositories", "index.js"));
const runtime = await openRuntime(loadConfig(env), "bench");

/** Waits until every job ended; returns their rows. */
async function allEnded(created, timeoutMs = 1_800_000) {
  const ids = created.map((one) => one.id);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await kyselyOf(runtime.database)
      .selectFrom("jobs")
      .select(["id", "status", "created_at", "started_at", "finished_at"])
      .where("id", "in", ids)
      .where("status", "in", ["done", "failed"])
      .execute();
    if (rows.length === ids.length) return rows;
    if (Date.now() > deadline) throw new Error(`${ids.length - rows.length} jobs did not end`);
    await delay(100);
  }
}

const results = {};
try {
  await untilReady(base);
  // Warm-up, not measured: module loads, the first sandboxes, LibreOffice's first start.
  await Promise.all(
    [rotate(), rotate(), post("/v1/merge", mergeInputs)].map(async (p) => untilEnded(await p)),
  );
  await untilEnded(await post("/v1/convert/word-to-pdf", [{ path: docx, name: "doc.docx" }]));

  // 1. Throughput.
  const rawRotations = await qpdfRotations(burstJobs);
  const burst = [];
  const started = performance.now();
  await pooled(burstJobs, inFlight, async (index) => {
    burst.push(await rotate(keys[index % keys.length]));
  });
  const acceptedMs = performance.now() - started;
  const ended = await allEnded(burst);
  const lastDone = Math.max(...ended.map((row) => Date.parse(row.finished_at)));
  const burstMs = lastDone - (performance.timeOrigin + started);
  const rate = (burst.length / burstMs) * 1000;
  results.throughput = {
    jobs: burst.length,
    accounts: keys.length,
    failed: ended.filter((row) => row.status !== "done").length,
    acceptedPerSecond: round((burst.length / acceptedMs) * 1000, 1),
    jobsPerSecond: round(rate, 1),
    qpdfCliPerSecond: round(rawRotations, 1),
    overQpdf: round(rate / rawRotations, 3),
  };
  console.error(JSON.stringify(results.throughput));

  // 2. Latency, one merge at a time.
  const qpdfMergeMs = qpdfMerges(mergeRuns);
  const latencies = [];
  for (let index = 0; index < mergeRuns; index += 1) {
    const began = performance.now();
    const created = await post("/v1/merge", mergeInputs);
    const found = await untilEnded(created);
    if (found.status !== "done") throw new Error(`merge failed: ${found.message}`);
    latencies.push(performance.now() - began);
  }
  results.mergeLatency = {
    runs: mergeRuns,
    postToDoneMs: round(median(latencies)),
    qpdfCliMs: round(qpdfMergeMs),
    overQpdf: round(median(latencies) / qpdfMergeMs, 2),
  };
  console.error(JSON.stringify(results.mergeLatency));

  // 3. Mixed load: heavy jobs behind queued light ones, then a light job behind queued heavy ones.
  const queued = [];
  await pooled(queuedLight, inFlight, async (index) => {
    queued.push(await rotate(keys[index % keys.length]));
  });
  const heavy = [
    await post("/v1/ocr", [{ path: scan, name: "scan.pdf" }]),
    await post("/v1/convert/word-to-pdf", [{ path: docx, name: "doc.docx" }]),
  ];
  const startDelay = async (created) => {
    const found = await untilEnded(created);
    return found.startedAt ? Date.parse(found.startedAt) - Date.parse(found.createdAt) : null;
  };
  const [ocrWait, wordWait] = [await startDelay(heavy[0]), await startDelay(heavy[1])];
  await allEnded(queued);
  const ocrBacklog = [];
  for (let index = 0; index < 6; index += 1)
    ocrBacklog.push(await post("/v1/ocr", [{ path: scan, name: "scan.pdf" }]));
  const rotateWait = await startDelay(await rotate());
  await allEnded(ocrBacklog);
  results.mixedLoad = {
    lightJobsQueued: queued.length,
    ocrStartMs: ocrWait,
    wordToPdfStartMs: wordWait,
    heavyJobsQueued: ocrBacklog.length,
    rotateStartMs: rotateWait,
  };
  console.error(JSON.stringify(results.mixedLoad));
} finally {
  await stopService(server);
  await runtime.close();
}

const summary = {
  machine: `${process.platform} ${process.arch}, ${(await import("node:os")).availableParallelism()} CPUs`,
  inputs: {
    rotate: "page 1 of examples/sample-a.pdf, angle 90",
    merge:
      "first ten pages of general/govdocs_error_set_1_316267.pdf and general/samplefiles_GeoTopo-komprimiert.pdf",
    ocr: "scanned/paperless_multi-page-images.pdf (3 pages)",
    wordToPdf: "office/pydocx_having-images.docx",
  },
  ...results,
};
console.log(JSON.stringify(summary, null, 2));
mkdirSync(join(root, "bench", "results"), { recursive: true });
writeFileSync(join(root, "bench", "results", "light-jobs.json"), `${JSON.stringify(summary, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
