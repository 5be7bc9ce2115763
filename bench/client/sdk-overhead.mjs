#!/usr/bin/env node
// What @octavo/client costs over hand-written fetch calls, on the same jobs in one run: a merge of two
// one-page PDFs submitted, waited for on the long poll and downloaded, alternately by the SDK
// (`client.run` + `output.bytes()`) and by raw fetch (POST form A, GET ?wait=, GET the link).
// Also the CLI (`octavo-client merge`), whose time includes starting Node. Run after `npm test` or
// `npm run setup`:
//
//   node bench/client/sdk-overhead.mjs [--runs 30]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  businessAccount,
  freePort,
  median,
  onePagePdf,
  startService,
  stopService,
  untilReady,
} from "../support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const runs = Number(values.runs);
const { Octavo } = await import(join(root, "packages", "client", "dist", "node.js"));
const cliBin = join(root, "apps", "client-cli", "bin", "octavo-client.mjs");

const work = mkdtempSync(join(tmpdir(), "octavo-bench-sdk-"));
const files = ["a.pdf", "b.pdf"].map((name) => ({ path: onePagePdf(join(work, name)), name }));
const port = await freePort();
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: join(work, "data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
};
const { apiKey } = businessAccount(env, "sdk-bench@example.com");
const server = startService(env);
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${apiKey}` };

/** The raw calls a customer would write without the SDK. */
async function rawRun() {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([readFileSync(file.path)]), file.name);
  const created = await (await fetch(`${base}/v1/merge`, { method: "POST", headers, body: form })).json();
  let job;
  do job = await (await fetch(`${base}/v1/jobs/${created.id}?wait=20`, { headers })).json();
  while (job.status !== "done" && job.status !== "failed");
  return new Uint8Array(await (await fetch(job.outputs[0].url)).arrayBuffer()).length;
}

const client = new Octavo({ apiKey, baseUrl: base });
async function sdkRun() {
  const job = await client.run(
    "merge",
    files.map((file) => file.path),
  );
  return (await job.outputs[0].bytes()).length;
}

function cliRun(i) {
  execFileSync(
    process.execPath,
    [cliBin, "merge", files[0].path, files[1].path, "-o", join(work, `cli-${i}.pdf`), "-q"],
    {
      env: { ...env, OCTAVO_API_KEY: apiKey, OCTAVO_BASE_URL: base },
    },
  );
}

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const raw = [];
const sdk = [];
const cli = [];
try {
  await untilReady(base);
  await rawRun(); // warm up both paths and the worker
  await sdkRun();
  for (let i = 0; i < runs; i += 1) {
    // Alternate which goes first, so neither always meets a warmer worker.
    if (i % 2 === 0) {
      raw.push(await timed(rawRun));
      sdk.push(await timed(sdkRun));
    } else {
      sdk.push(await timed(sdkRun));
      raw.push(await timed(rawRun));
    }
    if (i < 10) cli.push(await timed(() => cliRun(i)));
  }
} finally {
  await stopService(server);
  rmSync(work, { recursive: true, force: true });
}

const result = {
  runs,
  job: "merge of two one-page PDFs: submit, wait (long poll), download",
  rawFetchMs: Math.round(median(raw)),
  sdkMs: Math.round(median(sdk)),
  sdkOverRaw: Number((median(sdk) / median(raw)).toFixed(2)),
  cliMs: Math.round(median(cli)),
  cliRuns: cli.length,
};
console.log(JSON.stringify(result, null, 2));
