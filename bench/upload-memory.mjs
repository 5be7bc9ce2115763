#!/usr/bin/env node
// Memory of the API process during a large upload: `octavo api` (SQLite, supervised Redis) receives
// a ~49 MB PDF upload on a Business plan (50 MB per file); its resident set size (VmRSS) is sampled
// every 20 ms from /proc before, during and after the upload. Uploads stream into storage, so the
// growth should not follow the upload's size. `--storage s3` stores into an S3 server (s3rver, in
// this bench's process, on loopback) through multipart uploads instead of the local disk. Run after
// `npm test` or `npm run setup`:
//
//   node bench/upload-memory.mjs [--mb 49] [--repeat 4] [--storage local|s3]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort } from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "apps", "cli", "dist", "main.js");
const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "49" },
    repeat: { type: "string", default: "4" },
    storage: { type: "string", default: "local" },
  },
});
const totalBytes = Number(values.mb) * 1024 * 1024;
// Several uploads in a row: memory that followed the bytes received would keep growing; garbage that
// the collector reclaims levels off.
const repeat = Number(values.repeat);

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

const work = mkdtempSync(join(tmpdir(), "octavo-upload-bench-"));
const port = await freePort();
const { s3Env, startS3Server } = await import(join(root, "packages", "testing", "dist", "index.js"));
const s3 = values.storage === "s3" ? await startS3Server({ bucket: "upload-bench" }) : undefined;
const env = {
  ...process.env,
  OCTAVO_DATA_DIR: join(work, "data"),
  OCTAVO_PORT: String(port),
  OCTAVO_LOG_LEVEL: "warn",
  ...(s3 ? s3Env(s3) : {}),
};
const { apiKey } = JSON.parse(
  execFileSync(
    process.execPath,
    [cli, "accounts", "create", "--email", "bench@example.com", "--plan", "business"],
    { env, encoding: "utf8" },
  ),
);
// The API alone: no workers, so the job stays queued and only the upload path is measured.
const api = spawn(process.execPath, [cli, "api"], { env, stdio: ["ignore", "ignore", "inherit"] });
const base = `http://127.0.0.1:${port}`;
while (
  !(await fetch(`${base}/healthz`).then(
    (r) => r.ok,
    () => false,
  ))
)
  await delay(100);
// Warm the upload path once with a small request, so the baseline includes loaded code.
await fetch(`${base}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
await delay(500);

const before = rssMb(api.pid);
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, rssMb(api.pid));
}, 20);

const boundary = "octavo-bench";
const head = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const chunk = Buffer.alloc(256 * 1024, 0x20);
const upload = () =>
  new Promise((resolve, reject) => {
    const req = request(`${base}/v1/rotate`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once("drain", pump);
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
const started = performance.now();
const statuses = [];
const peaks = [];
for (let i = 0; i < repeat; i += 1) {
  statuses.push(await upload());
  peaks.push(Math.round(peak - before));
}
const status = statuses.every((code) => code === 202) ? 202 : statuses.join(",");
const seconds = (performance.now() - started) / 1000;
await delay(500);
clearInterval(sampler);
const after = rssMb(api.pid);
api.kill("SIGTERM");
await s3?.close();
rmSync(work, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      storage: values.storage,
      uploadMb: Number(values.mb),
      uploads: repeat,
      status,
      peakGrowthAfterEachUploadMb: peaks,
      seconds: Number(seconds.toFixed(2)),
      rssBeforeMb: Math.round(before),
      rssPeakMb: Math.round(peak),
      rssAfterMb: Math.round(after),
      peakGrowthMb: Math.round(peak - before),
    },
    null,
    2,
  ),
);
