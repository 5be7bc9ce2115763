#!/usr/bin/env node
// POST-to-done latency of a merge of two 10-page PDFs through the whole API (HTTP upload, job row,
// queue, worker, sandboxed engine, storage, polling), against the same merge done directly with the
// chosen engine (@octavo/engines merge, MuPDF.js) in one process, and the raw qpdf CLI for scale.
// All three run in one invocation on the same files. Run after `npm test` or `npm run setup`:
//
//   node bench/merge-latency.mjs [--runs 15] [--gap-ms 500]
//
// The inputs are the first ten pages of two real corpus files, cut with qpdf.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, median } from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus");
const { values } = parseArgs({
  options: { runs: { type: "string", default: "15" }, "gap-ms": { type: "string", default: "500" } },
});
const runs = Number(values.runs);
// A pause between API requests, as between real clients' jobs: the worker's spare sandbox is warm again.
const gapMs = Number(values["gap-ms"]);
const node = process.execPath;
const cli = join(root, "apps", "cli", "dist", "main.js");

const work = mkdtempSync(join(tmpdir(), "octavo-bench-"));
const inputs = [
  ["general/govdocs_error_set_1_316267.pdf", "a.pdf"],
  ["general/samplefiles_GeoTopo-komprimiert.pdf", "b.pdf"],
].map(([source, name]) => {
  const path = join(work, name);
  execFileSync("qpdf", ["--empty", "--pages", join(corpus, source), "1-10", "--", path]);
  return { path, name };
});

// 1. The engine directly, in this process (warm, as a worker keeps it).
const { merge } = await import(join(root, "packages", "engines", "dist", "index.js"));
const direct = [];
for (let i = 0; i <= runs; i += 1) {
  const dir = join(work, `direct-${i}`);
  mkdirSync(dir);
  const started = performance.now();
  await merge(inputs, {}, { workDir: dir });
  if (i > 0) direct.push(performance.now() - started); // run 0 warms up module load
}

// 2. The raw qpdf CLI (no bookmarks kept), for scale.
const qpdf = [];
for (let i = 0; i < runs; i += 1) {
  const started = performance.now();
  execFileSync("qpdf", [
    "--empty",
    "--pages",
    inputs[0].path,
    inputs[1].path,
    "--",
    join(work, `qpdf-${i}.pdf`),
  ]);
  qpdf.push(performance.now() - started);
}

// 2b. The engine in a fresh Node process each time: what the per-job sandbox costs by itself.
const fresh = [];
const freshScript = `const { merge } = await import(${JSON.stringify(join(root, "packages", "engines", "dist", "index.js"))});
await merge(JSON.parse(process.argv[1]), {}, { workDir: process.argv[2] });`;
for (let i = 0; i < runs; i += 1) {
  const dir = join(work, `fresh-${i}`);
  mkdirSync(dir);
  const started = performance.now();
  execFileSync(node, ["--input-type=module", "-e", freshScript, JSON.stringify(inputs), dir]);
  fresh.push(performance.now() - started);
}

// 3. Through the API: `octavo start` on a fresh data dir (SQLite, supervised Redis).
const port = await freePort();
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: join(work, "data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
};
const account = JSON.parse(
  execFileSync(node, [cli, "accounts", "create", "--email", "bench@example.com", "--plan", "business"], {
    env,
    encoding: "utf8",
  }),
);
const server = spawn(node, [cli, "start"], { env, stdio: ["ignore", "ignore", "inherit"] });
const base = `http://127.0.0.1:${port}`;
for (let ready = false; !ready; ) {
  ready = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (!ready) await delay(100);
}
const headers = { authorization: `Bearer ${account.apiKey}` };
const bodies = inputs.map((input) => new Blob([readFileSync(input.path)]));
const api = [];
const queueWait = [];
const running = [];
try {
  for (let i = 0; i <= runs; i += 1) {
    const form = new FormData();
    for (const [index, blob] of bodies.entries()) form.append("file", blob, inputs[index].name);
    const started = performance.now();
    const created = await (await fetch(`${base}/v1/merge`, { method: "POST", headers, body: form })).json();
    // Long poll: the answer comes as soon as the job ends (one request, not one per poll interval).
    let job;
    do {
      const answer = await fetch(`${base}/v1/jobs/${created.id}?wait=30`, { headers });
      if (answer.status === 429)
        throw new Error("rate limited: the bench must stay under the plan's requests per minute");
      job = await answer.json();
    } while (job.status !== "done" && job.status !== "failed");
    if (job.status !== "done") throw new Error(`merge failed: ${job.message}`);
    if (i > 0) {
      api.push(performance.now() - started);
      queueWait.push(Date.parse(job.startedAt) - Date.parse(job.createdAt));
      running.push(Date.parse(job.finishedAt) - Date.parse(job.startedAt));
    }
    await delay(gapMs);
  }
} finally {
  server.kill("SIGTERM");
}

const result = {
  runs,
  gapMs,
  inputs:
    "10 + 10 pages (first ten pages of govdocs_error_set_1_316267.pdf and samplefiles_GeoTopo-komprimiert.pdf)",
  apiPostToDoneMs: Math.round(median(api)),
  apiQueueWaitMs: Math.round(median(queueWait)),
  apiRunMs: Math.round(median(running)),
  engineDirectMs: Math.round(median(direct)),
  engineFreshProcessMs: Math.round(median(fresh)),
  qpdfCliMs: Math.round(median(qpdf)),
  apiOverEngine: Number((median(api) / median(direct)).toFixed(2)),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(root, "bench", "results"), { recursive: true });
writeFileSync(join(root, "bench", "results", "merge-latency.json"), `${JSON.stringify(result, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
