#!/usr/bin/env node
// Throughput of Office conversions through the whole API: `octavo start` (SQLite, supervised Redis,
// warm LibreOffice in the worker) takes 20 concurrent word-to-pdf jobs, then a mixed queue of 21
// docx/xlsx/pptx jobs, each job one corpus file; the clock runs from the first POST to the last
// `done`. Run after `npm test` or `npm run setup`:
//
//   node bench/office-throughput.mjs [--jobs 20]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "..", "shared", "corpus", "office");
const cli = join(root, "apps", "cli", "dist", "main.js");
const { values } = parseArgs({ options: { jobs: { type: "string", default: "20" } } });
const jobs = Number(values.jobs);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const work = mkdtempSync(join(tmpdir(), "octavo-office-bench-"));
const port = await freePort();
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: join(work, "data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
};
const { apiKey } = JSON.parse(
  execFileSync(
    process.execPath,
    [cli, "accounts", "create", "--email", "bench@example.com", "--plan", "business"],
    { env, encoding: "utf8" },
  ),
);
const server = spawn(process.execPath, [cli, "start"], { env, stdio: ["ignore", "ignore", "inherit"] });
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${apiKey}` };
while (
  !(await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  ))
)
  await delay(100);

const endpoints = { docx: "word-to-pdf", xlsx: "excel-to-pdf", pptx: "powerpoint-to-pdf" };
const samples = {
  docx: join(corpus, "tika_testWORD_various.docx"),
  xlsx: join(corpus, "docling_xlsx_01.xlsx"),
  pptx: join(corpus, "poi_with_japanese.pptx"),
};

async function runJob(kind) {
  const form = new FormData();
  form.append("file", new Blob([readFileSync(samples[kind])]), basename(samples[kind]));
  const created = await (
    await fetch(`${base}/v1/convert/${endpoints[kind]}`, { method: "POST", headers, body: form })
  ).json();
  if (!created.id) throw new Error(`refused: ${JSON.stringify(created)}`);
  for (;;) {
    const job = await (await fetch(`${base}/v1/jobs/${created.id}?wait=30`, { headers })).json();
    if (job.status === "done") return;
    if (job.status === "failed") throw new Error(`${kind} failed: ${job.message}`);
  }
}

async function batch(kinds) {
  const started = performance.now();
  await Promise.all(kinds.map((kind) => runJob(kind)));
  const seconds = (performance.now() - started) / 1000;
  return {
    jobs: kinds.length,
    seconds: Number(seconds.toFixed(2)),
    docsPerSecond: Number((kinds.length / seconds).toFixed(2)),
  };
}

try {
  await runJob("docx"); // warm-up: the first conversion starts LibreOffice
  const docx = await batch(Array.from({ length: jobs }, () => "docx"));
  const mixed = await batch(Array.from({ length: jobs + 1 }, (_, i) => ["docx", "xlsx", "pptx"][i % 3]));
  console.log(JSON.stringify({ concurrentDocx: docx, mixedDocxXlsxPptx: mixed }, null, 2));
} finally {
  server.kill("SIGTERM");
  await delay(2_000);
  rmSync(work, { recursive: true, force: true });
}
