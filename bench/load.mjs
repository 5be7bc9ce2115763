// The hardening suite's load run: autocannon against a fresh single-machine service, for a fixed time,
// on the routes clients hit most (job creation with a small upload, job polling, the account, a bad key,
// health). It must see no 5xx; 429 (the plan's rate limit) and 202 are the service working as documented.
//
//   node bench/load.mjs [--seconds 20] [--connections 20]
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import {
  businessAccount,
  freePort,
  onePagePdf,
  postJob,
  startService,
  stopService,
  untilReady,
} from "./support.mjs";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "20" }, connections: { type: "string", default: "20" } },
});
const dataDir = mkdtempSync(join(tmpdir(), "octavo-load-"));
const port = await freePort();
const env = { ...process.env, OCTAVO_DATA_DIR: dataDir, OCTAVO_PORT: String(port), OCTAVO_LOG_LEVEL: "warn" };
const server = startService(env);
const base = `http://127.0.0.1:${port}`;
await untilReady(base);
const { apiKey } = businessAccount(env, "load@example.com");
const auth = { authorization: `Bearer ${apiKey}` };
const pdf = readFileSync(onePagePdf(join(dataDir, "one-page.pdf")));
const jobId = await postJob(
  base,
  apiKey,
  "/v1/rotate",
  [{ path: join(dataDir, "one-page.pdf"), name: "a.pdf" }],
  { angle: 90 },
);

// One multipart body, built once, sent as is by every upload request.
const boundary = "octavo-load-boundary";
const upload = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  ),
  pdf,
  Buffer.from(
    `\r\n--${boundary}\r\nContent-Disposition: form-data; name="options"\r\n\r\n{"angle":90}\r\n--${boundary}--\r\n`,
  ),
]);
const requests = [
  {
    method: "POST",
    path: "/v1/rotate",
    headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
    body: upload,
  },
  { method: "GET", path: `/v1/jobs/${jobId}`, headers: auth },
  { method: "GET", path: "/v1/account", headers: auth },
  { method: "GET", path: "/v1/account", headers: { authorization: "Bearer sk_live_not_a_key" } },
  { method: "GET", path: "/healthz" },
];
const statuses = {};
const result = await autocannon({
  url: base,
  connections: Number(values.connections),
  duration: Number(values.seconds),
  requests,
  setupClient: (client) =>
    client.on("response", (status) => (statuses[status] = (statuses[status] ?? 0) + 1)),
});
await stopService(server);
const serverErrors = Object.entries(statuses).filter(([status]) => Number(status) >= 500);
console.log(
  JSON.stringify({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    requests: result.requests.total,
    perSecond: result.requests.average,
    latencyMedianMs: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    serverErrors: serverErrors.length,
  }),
);
process.exitCode = serverErrors.length === 0 && result.errors === 0 ? 0 : 1;
