// Small helpers the benchmarks share.
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "apps", "cli", "dist", "main.js");

/** `task(index)` run `runs` times after one warm-up (index -1); each run's milliseconds. */
export async function timedRuns(runs, task) {
  await task(-1);
  const times = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await task(index);
    times.push(performance.now() - started);
  }
  return times;
}

/** The median of the finite numbers among `values`; null when there are none. */
export function median(values) {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A loopback port nothing listens on right now. */
export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// Linux's clock ticks per second for /proc CPU times (USER_HZ, 100 on every Linux build we run on).
const TICKS_PER_SECOND = 100;

/** CPU seconds the whole machine spent busy (everything but idle and I/O wait) since boot. */
export function machineBusySeconds() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used by a process and every descendant: the live ones' own time, plus the time of the
 * children each has already reaped (Linux adds a reaped child's own reaped children to it).
 */
export function treeCpuSeconds(pid) {
  let ticks = 0;
  const visit = (id) => {
    let stat;
    try {
      stat = readFileSync(`/proc/${id}/stat`, "utf8");
    } catch {
      return; // ended meanwhile: its time is in its parent's reaped children
    }
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // After the name: state ppid … utime(12) stime(13) cutime(14) cstime(15), counted from state = 1.
    ticks += fields[11] + fields[12] + fields[13] + fields[14];
    for (const task of readdirSync(`/proc/${id}/task`, { withFileTypes: true })) {
      let children = "";
      try {
        children = readFileSync(`/proc/${id}/task/${task.name}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children.trim().split(/\s+/).filter(Boolean)) visit(Number(child));
    }
  };
  visit(pid);
  return ticks / TICKS_PER_SECOND;
}

/** Page 1 of examples/sample-a.pdf, written to `path` (the benches' light job). */
export function onePagePdf(path) {
  execFileSync("qpdf", ["--empty", "--pages", join(root, "examples", "sample-a.pdf"), "1", "--", path]);
  return path;
}

/** A Business account made with the operator CLI on the service's data dir: {accountId, apiKey, ...}. */
export function businessAccount(env, email) {
  return JSON.parse(
    execFileSync(process.execPath, [cli, "accounts", "create", "--email", email, "--plan", "business"], {
      env,
      encoding: "utf8",
    }),
  );
}

/** Resolves once the service at `base` answers /readyz. */
export async function untilReady(base) {
  while (
    !(await fetch(`${base}/readyz`).then(
      (answer) => answer.ok,
      () => false,
    ))
  )
    await delay(100);
}

/** SIGTERM to a service started with spawn, resolved once it has exited. */
export async function stopService(server) {
  server.kill("SIGTERM");
  await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once("exit", resolve)));
}

/** `octavo start` with this environment (its stderr shown), as `npm start` runs it. */
export function startService(env) {
  return spawn(process.execPath, [cli, "start"], { env, stdio: ["ignore", "ignore", "inherit"] });
}

/** Form A: uploads `files` ({path, name}) with `options`; the new job's id (throws unless 202). */
export async function postJob(base, key, path, files, options) {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([readFileSync(file.path)]), file.name);
  if (options) form.append("options", JSON.stringify(options));
  const answer = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (answer.status !== 202)
    throw new Error(`POST ${path} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()).id;
}

/**
 * `octavo start` on a free loopback port, its data under `dataDir` (warnings and errors logged), with a
 * Business account made first: {base, apiKey, headers, server}. Wait with untilReady(base); end with
 * stopService(server).
 */
export async function serviceWithAccount(dataDir, email) {
  const port = await freePort();
  const env = {
    ...process.env,
    OCTAVO_DATA_DIR: dataDir,
    OCTAVO_PORT: String(port),
    OCTAVO_LOG_LEVEL: "warn",
  };
  const { apiKey } = businessAccount(env, email);
  const server = startService(env);
  return { base: `http://127.0.0.1:${port}`, apiKey, headers: { authorization: `Bearer ${apiKey}` }, server };
}

/** A job's state once it is done or failed, long-polled 20 s at a time. */
export async function finishedJob(base, key, id) {
  const headers = { authorization: `Bearer ${key}` };
  for (;;) {
    const job = await (await fetch(`${base}/v1/jobs/${id}?wait=20`, { headers })).json();
    if (job.status === "done" || job.status === "failed") return job;
  }
}

/** An error as "Name: message" (a child's report of a failure). */
export const errorText = (error) => `${error?.name ?? "Error"}: ${error?.message ?? String(error)}`;

/**
 * A conversion child's one conversion (bench/pdf-office/convert-child.mjs, bench/markdown/speed-child.mjs):
 * `convert()` timed. Resolves to {ok: true, seconds, result} with what it resolved to, or, when it throws,
 * {ok: false, phase: "convert", code, error, seconds}: a JobFailure's client-facing code (no_tables,
 * conversion_failed, …), null for anything else.
 */
export async function timedConversion(convert) {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const result = await convert();
    return { ok: true, seconds: seconds(), result };
  } catch (error) {
    return {
      ok: false,
      phase: "convert",
      code: error?.code ?? null,
      error: errorText(error),
      seconds: seconds(),
    };
  }
}
