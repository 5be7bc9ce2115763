#!/usr/bin/env node
// The fleet, built and run for real on one Docker host (`npm run test:fleet`):
//   1. the base image (debootstrap, when FLEET_BASE_IMAGE is not there yet), the six role images and
//      the backing services' images, each built with Docker's layer cache;
//   2. docker-compose.yml with infra/fleet/compose.test.yml: PostgreSQL, Redis, s3rver, the migration,
//      two API containers behind the proxy, one worker per class;
//   3. one job of every operation of the catalogue and one pipeline (POST /v1/pipeline) through the
//      proxy, each output checked;
//   4. worker-pdf scaled to 3, 300 light jobs, each of the three took some;
//   5. a worker-pdf container stopped (SIGTERM) in the middle of a job: the job is handed back,
//      finished by another worker and charged once;
//   6. everything torn down: no container, network or volume of the project left.
// Images are built from this working tree, uncommitted changes included. It needs a Docker daemon, root
// for debootstrap (first run only), and the npm registry and Debian's
// archive during builds. Traffic otherwise stays between this machine's containers and loopback.
//
// Settings: FLEET_BASE_IMAGE (default octavo-base:bookworm), FLEET_HTTP_PORT (18000),
// FLEET_KEEP=1 (leave the stack up for a look; `docker-compose -p octavo-fleet-test down -v` later),
// FLEET_NO_CACHE=1 (build every image from scratch, to measure cold build times),
// FLEET_BUILD_CA_CERT (a PEM file: the CA of a TLS-intercepting network, trusted by the builds'
// downloads; default: the certificates this machine added in /usr/local/share/ca-certificates).
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import {
  buildImages,
  composeName,
  composeProject,
  ensureBaseImage,
  FleetFailure,
  isContentType,
  logger,
  logLines,
  ROLES,
  ROOT,
  run,
  waitFor,
} from "./fleet.mjs";
import { corpus, jobOf, sample } from "./operation-jobs.mjs";

// The operation catalogue, as the images run it (npm run setup builds it).
const { operations, queuesOfClass } = await import(join(ROOT, "packages/contracts/dist/index.js"));
const HTTP_PORT = Number(process.env.FLEET_HTTP_PORT ?? 18000);
const LIGHT_JOBS = 300;
const log = logger("fleet");
const fleet = composeProject({
  project: "octavo-fleet-test",
  files: ["infra/fleet/compose.test.yml"],
  httpPort: HTTP_PORT,
});
const { baseUrl: BASE_URL, compose, containersOf, sql } = fleet;
const createAccount = () => fleet.createAccount("business");

function check(condition, message) {
  if (!condition) throw new FleetFailure(message);
  log(`ok: ${message}`);
}

/** Every octavo container runs as the image's unprivileged user on a read-only root filesystem. */
function checkHardening() {
  const containers = ROLES.flatMap((role) => containersOf(role).map(({ name }) => name));
  for (const name of containers) {
    const format = "{{.HostConfig.ReadonlyRootfs}} {{.Config.User}}";
    const [readOnly, user] = run("docker", ["inspect", "--format", format, name]).stdout.trim().split(" ");
    if (readOnly !== "true" || user !== "10001:10001")
      throw new FleetFailure(`${name}: read-only ${readOnly}, user ${user}`);
  }
  check(
    containers.length === ROLES.length + 1,
    `all ${containers.length} octavo containers run as 10001:10001 on a read-only root filesystem`,
  );
}

/** A container's Prometheus exposition, fetched inside it (the ports are not published). */
function scrape(container, port) {
  const script = `fetch("http://127.0.0.1:${port}/metrics").then((r) => r.text()).then((t) => process.stdout.write(t))`;
  return run("docker", ["exec", container, "node", "-e", script]).stdout;
}

/** The sum of a counter's samples whose labels include these. */
function total(exposition, name, labels = "") {
  return exposition
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

/** What an operator scraping the fleet sees: the API nodes counted every job, a worker its own. */
function checkMetrics(jobsSent) {
  const apis = containersOf("api").map(({ name }) => scrape(name, 9464));
  const accepted = apis.reduce((sum, text) => sum + total(text, "octavo_jobs_accepted_total"), 0);
  check(accepted === jobsSent, `the API nodes' /metrics (port 9464) count ${accepted} jobs accepted`);
  const [office] = containersOf("worker-office");
  const worker = scrape(office.name, 8081);
  const done = total(worker, "octavo_jobs_finished_total", 'status="done"');
  const officeJobs = queuesOfClass("office").length;
  check(done === officeJobs, `worker-office's /metrics (health port 8081) counts its ${done} jobs done`);
  check(
    /^octavo_queue_jobs\{queue="merge",state="waiting",class="pdf"\} 0$/m.test(apis[0] ?? ""),
    "queue depth is exported, with the worker class of each queue",
  );
}

// ---------------------------------------------------------------------------------------------
// The API, as a customer calls it through the proxy

async function request(apiKey, path, init = {}) {
  for (;;) {
    const response = await fetch(`${BASE_URL}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, ...(init.headers ?? {}) },
    });
    if (response.status !== 429) return response;
    await delay(Number(response.headers.get("retry-after") ?? 1) * 1000);
  }
}

async function submit(apiKey, path, files, options, fields = {}) {
  const form = new FormData();
  for (const file of files) {
    const { path, field } = typeof file === "string" ? { path: file, field: "file" } : file;
    form.append(field, new Blob([readFileSync(path)]), basename(path));
  }
  if (options) form.append("options", JSON.stringify(options));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await request(apiKey, path, { method: "POST", body: form });
  const body = await response.json();
  if (response.status !== 202) throw new FleetFailure(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

async function finished(apiKey, jobId, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await (await request(apiKey, `/v1/jobs/${jobId}?wait=30`)).json();
    if (job.status === "done" || job.status === "failed") return job;
    if (Date.now() > deadline) throw new FleetFailure(`job ${jobId} still ${job.status}`);
  }
}

/** Downloads every output of a done job and checks it is what its content type says. */
async function checkOutputs(job) {
  const sizes = [];
  for (const output of job.outputs) {
    const bytes = Buffer.from(await (await fetch(output.url)).arrayBuffer());
    if (!isContentType(bytes, output.contentType))
      throw new FleetFailure(`${job.operation}: ${output.name} (${output.contentType}) is not what it says`);
    sizes.push(bytes.length);
  }
  return sizes;
}

/** Every operation of the catalogue (one without a job stops the run), and one pipeline. */
function everyOperation() {
  const missing = operations.filter((spec) => jobOf(spec) === undefined).map((spec) => spec.id);
  check(
    missing.length === 0,
    missing.length === 0
      ? `the fleet has a job for each of the catalogue's ${operations.length} operations`
      : `the fleet has no job for ${missing.join(", ")}: add one to operationJobs (infra/fleet/operation-jobs.mjs)`,
  );
  return [
    ...operations.map((spec) => [spec.path, ...jobOf(spec)]),
    // Several operations as one job, run by worker-pipeline.
    [
      "/v1/pipeline",
      [sample],
      undefined,
      { steps: JSON.stringify([{ operation: "rotate", options: { angle: 90 } }, { operation: "compress" }]) },
    ],
  ];
}

async function runEveryOperation(apiKey) {
  const submitted = [];
  for (const [path, files, options, fields] of everyOperation())
    submitted.push({ path, id: await submit(apiKey, path, files, options, fields) });
  for (const { path, id } of submitted) {
    const job = await finished(apiKey, id);
    if (job.status !== "done")
      throw new FleetFailure(`${path}: ${job.status} ${job.error ?? ""} ${job.message ?? ""}`);
    const sizes = await checkOutputs(job);
    log(
      `ok: ${path.padEnd(32)} done in ${secondsOf(job)} s, ${sizes.length} output(s): ${sizes.join(", ")} bytes`,
    );
  }
  return submitted;
}

/** The receiver got the job's webhook through worker-webhooks, signed with the account's secret. */
async function checkWebhook(jobId, secret) {
  const [receiver] = containersOf("webhook-receiver");
  const delivery = await waitFor(
    "the merge job's webhook",
    async () =>
      run("docker", ["logs", receiver.name])
        .stdout.split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line))
        .find((received) => JSON.parse(received.body).id === jobId),
    60_000,
  );
  const t = /t=(\d+)/.exec(delivery.signature)?.[1];
  const expected = createHmac("sha256", secret).update(`${t}.${delivery.body}`).digest();
  const signed = [...delivery.signature.matchAll(/v1=([0-9a-f]{64})/g)].some(([, hex]) =>
    timingSafeEqual(Buffer.from(hex, "hex"), expected),
  );
  check(
    signed && JSON.parse(delivery.body).status === "done",
    `the merge job's webhook arrived, signed with the account's secret`,
  );
}

const secondsOf = (job) => ((Date.parse(job.finishedAt) - Date.parse(job.createdAt)) / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------------

async function scaleAndSpread() {
  compose(["up", "-d", "--no-build", "--no-recreate", "--scale", "api=2", "--scale", "worker-pdf=3"]);
  await waitFor(
    "three healthy worker-pdf containers",
    async () => {
      const workers = containersOf("worker-pdf");
      return workers.length === 3 && workers.every((worker) => worker.status.includes("(healthy)"));
    },
    180_000,
  );
  log("worker-pdf scaled to 3 (docker-compose up -d --scale worker-pdf=3), all healthy");
  // Three accounts share the jobs: each plan allows 300 requests a minute, polls included.
  const keys = [];
  for (let account = 0; account < 3; account += 1) keys.push((await createAccount()).apiKey);
  const t0 = Date.now();
  const ids = [];
  const queue = Array.from({ length: LIGHT_JOBS }, (_, index) => index);
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
        const key = keys[index % keys.length];
        ids.push([key, await submit(key, "/v1/rotate", [sample], { angle: 90 })]);
      }
    }),
  );
  const statuses = await Promise.all(ids.map(([key, id]) => finished(key, id).then((job) => job.status)));
  const done = statuses.filter((status) => status === "done").length;
  check(
    done === LIGHT_JOBS,
    `${done} of ${LIGHT_JOBS} rotate jobs done in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const idSet = new Set(ids.map(([, id]) => id));
  const perWorker = containersOf("worker-pdf").map(({ name }) => ({
    name,
    jobs: logLines(name, "job done").filter((line) => idSet.has(line.jobId)).length,
  }));
  for (const { name, jobs } of perWorker) log(`  ${name}: ${jobs} of them`);
  check(
    perWorker.length === 3 && perWorker.every(({ jobs }) => jobs > 0),
    "each of the three worker-pdf containers took some",
  );
  return LIGHT_JOBS;
}

async function stopMidJob() {
  const { apiKey } = await createAccount();
  const big = [
    "general/govdocs_error_set_2_064034.pdf",
    "general/govdocs_error_set_1_316267.pdf",
    "general/samplefiles_GeoTopo-komprimiert.pdf",
  ].map(corpus);
  const parts = Array.from({ length: 18 }, (_, index) => big[index % big.length]);
  const jobId = await submit(apiKey, "/v1/merge", parts);
  const runner = await waitFor(
    "a worker-pdf container to start the long merge",
    async () =>
      containersOf("worker-pdf").find(({ name }) =>
        logLines(name, "job started").some((line) => line.jobId === jobId),
      )?.name,
    60_000,
  );
  log(`the long merge ${jobId} runs on ${runner}: docker stop ${runner} (SIGTERM)`);
  run("docker", ["stop", "--time", "60", runner]);
  const handedBack = logLines(runner, "job handed back on shutdown").some((line) => line.jobId === jobId);
  check(handedBack, `${runner} handed the job back on SIGTERM`);
  const job = await finished(apiKey, jobId);
  check(job.status === "done", `the job ended ${job.status}`);
  const finisher = containersOf("worker-pdf").find(({ name }) =>
    logLines(name, "job done").some((line) => line.jobId === jobId),
  );
  check(finisher !== undefined && finisher.name !== runner, `another worker finished it (${finisher?.name})`);
  const charges = sql(`select count(*) from credit_ledger where job_id = '${jobId}' and kind = 'charge'`);
  const attempts = sql(`select attempts from jobs where id = '${jobId}'`);
  check(charges === "1", `charged once (credit_ledger charges: ${charges}; attempts: ${attempts})`);
  return 1;
}

async function main() {
  log(`compose: ${composeName()}; proxy on ${BASE_URL}`);
  let images = [];
  let jobs = 0;
  const failure = await fleet.runThenTearDown(
    log,
    async () => {
      ensureBaseImage(log);
      images = buildImages(log);
      compose(["up", "-d", "--no-build", "--scale", "api=2"]);
      await waitFor("the proxy's /readyz", async () => (await fetch(`${BASE_URL}/readyz`)).ok, 240_000);
      check(containersOf("api").length === 2, "two API containers behind the proxy, ready");
      checkHardening();
      const { apiKey, webhookSecret } = await createAccount();
      const submitted = await runEveryOperation(apiKey);
      jobs += submitted.length;
      await checkWebhook(submitted[0].id, webhookSecret);
      checkMetrics(submitted.length);
      const accepted = containersOf("api").map(({ name }) => logLines(name, "job accepted").length);
      check(
        accepted.every((count) => count > 0),
        `both API containers accepted jobs (${accepted.join(" and ")})`,
      );
      jobs += await scaleAndSpread();
      jobs += await stopMidJob();
    },
    { keep: process.env.FLEET_KEEP === "1", showLogs: () => true },
  );
  const minutes = (process.uptime() / 60).toFixed(1);
  log(`${failure ? "FAILED" : "passed"} in ${minutes} min: ${images.length} images, ${jobs} jobs`);
}

await main();
