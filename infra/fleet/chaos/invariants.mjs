// What must hold after a chaos run, read from the fleet's PostgreSQL, its S3 store, the webhook
// receiver's log and the API. Each check returns { name, pass, detail } and never throws for a
// violation: the run prints them all.
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContentType, logLines, run } from "../fleet.mjs";
import { PROTECT_PASSWORD } from "./traffic.mjs";

const WEBHOOK_ATTEMPTS = 4; // the first and three retries (service-spec.md, "Events")

const verdict = (name, problems, detail) => ({
  name,
  pass: problems.length === 0,
  detail:
    problems.length === 0 ? detail : `${problems.length} problem(s): ${problems.slice(0, 8).join("; ")}`,
});

/** Whether [from, to] meets a fault window, with `tailMs` of recovery after each. */
export function duringFaults(windows, from, to, tailMs = 30_000) {
  return windows.some((window) => from <= window.end + tailMs && to >= window.start);
}

/** The state the checks read, gathered once after the drain. */
export function gather(fleet) {
  return {
    jobs: fleet.sqlRows(
      "select id, account_id, operation, status, error_code, error_message, credits, attempts, created_at, finished_at from jobs",
    ),
    charges: fleet.sqlRows(
      "select job_id, count(*)::int as count, sum(amount)::int as amount from credit_ledger where kind = 'charge' group by job_id",
    ),
    liveFiles: fleet.sqlRows(
      "select f.storage_key, f.role, j.status from job_files f join jobs j on j.id = f.job_id where f.deleted_at is null",
    ),
    deliveries: fleet.sqlRows(
      "select d.id, d.job_id, d.status, d.attempts, (select json_agg(a.started_at order by a.attempt) from webhook_attempts a where a.delivery_id = d.id) as attempt_times from webhook_deliveries d",
    ),
  };
}

/** Every accepted job ended: done, or failed `canceled` where the run canceled it. */
export function everyJobEnded({ jobs }, submissions) {
  const kindOf = new Map(submissions.filter((s) => s.id).map((s) => [s.id, s.kind]));
  const problems = [];
  for (const job of jobs) {
    if (job.status === "queued" || job.status === "active")
      problems.push(`${job.id} (${job.operation}) still ${job.status}`);
    else if (job.status === "failed" && !(job.error_code === "canceled" && kindOf.get(job.id) === "cancel"))
      problems.push(`${job.id} (${job.operation}) failed ${job.error_code}: ${job.error_message}`);
  }
  const done = jobs.filter((job) => job.status === "done").length;
  return verdict(
    "every accepted job ended, none failed by a fault",
    problems,
    `${done} done, ${jobs.length - done} canceled`,
  );
}

/** Each submission accepted exactly once: its id is one job, a resent key gave the same job, nothing extra. */
export function acceptedExactlyOnce({ jobs }, submissions) {
  const problems = [];
  const ids = new Set(jobs.map((job) => job.id));
  const sent = new Set();
  for (const s of submissions) {
    if (!s.id) problems.push(`submission ${s.n} (${s.operation ?? s.kind}) never accepted: ${s.error}`);
    else if (!ids.has(s.id)) problems.push(`submission ${s.n}: job ${s.id} is not in the database`);
    else if (sent.has(s.id)) problems.push(`job ${s.id} answered to two submissions`);
    if (s.kind === "twice" && s.id && s.secondId !== s.id)
      problems.push(`key resent for ${s.id} made ${s.secondId}`);
    if (s.id) sent.add(s.id);
  }
  for (const id of ids) if (!sent.has(id)) problems.push(`job ${id} was made but answered to no submission`);
  return verdict(
    "every submission accepted exactly once",
    problems,
    `${sent.size} jobs for ${submissions.length} submissions`,
  );
}

/** Done jobs charged once for their credits; failed jobs not at all; nothing reserved. */
export function chargesExact({ jobs, charges }, accountsReserved) {
  const problems = [];
  const byJob = new Map(charges.map((charge) => [charge.job_id, charge]));
  for (const job of jobs) {
    const charge = byJob.get(job.id);
    if (job.status === "done" && (charge?.count !== 1 || charge.amount !== job.credits))
      problems.push(
        `${job.id} done, charged ${charge?.count ?? 0}× for ${charge?.amount ?? 0} of ${job.credits}`,
      );
    if (job.status !== "done" && charge) problems.push(`${job.id} ${job.status}, charged ${charge.count}×`);
  }
  for (const { plan, reserved } of accountsReserved)
    if (reserved !== 0) problems.push(`${plan} account has ${reserved} credits reserved`);
  const charged = jobs.filter((job) => byJob.has(job.id)).length;
  return verdict(
    "charges and credits exact",
    problems,
    `${charged} charges, 0 credits reserved on ${accountsReserved.length} accounts`,
  );
}

/** Every done job's outputs download and are what they say: qpdf --check for PDFs. */
export async function outputsComplete(doneJobs) {
  const problems = [];
  const dir = mkdtempSync(join(tmpdir(), "octavo-chaos-"));
  let count = 0;
  try {
    for (const job of doneJobs) {
      if (!job.outputs?.length) problems.push(`${job.id} done without outputs`);
      for (const output of job.outputs ?? []) {
        const response = await fetch(output.url);
        const bytes = Buffer.from(await response.arrayBuffer());
        count += 1;
        if (!response.ok || !isContentType(bytes, output.contentType)) {
          problems.push(`${job.id} ${output.name}: HTTP ${response.status}, not ${output.contentType}`);
          continue;
        }
        if (output.contentType !== "application/pdf") continue;
        const file = join(dir, "output.pdf");
        writeFileSync(file, bytes);
        // qpdf exits 3 for warnings only; 2 is an error.
        const password = job.operation === "protect" ? [`--password=${PROTECT_PASSWORD}`] : [];
        const check = run("qpdf", ["--check", ...password, file], { allowFailure: true });
        if (check.status === 2)
          problems.push(
            `${job.id} ${output.name}: qpdf --check: ${`${check.stdout}${check.stderr}`.trim().split("\n").at(-1)}`,
          );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return verdict(
    "every done job's outputs download and are valid",
    problems,
    `${count} outputs of ${doneJobs.length} jobs`,
  );
}

/** No object in S3 that no job holds; inputs of ended jobs not yet deleted are reported apart. */
export function storageClean({ liveFiles }, fleet) {
  const [{ name }] = fleet.containersOf("minio");
  const found = run("docker", [
    "exec",
    name,
    "find",
    "/data/octavo",
    "-type",
    "f",
    "-name",
    "*._S3rver_object",
  ])
    .stdout.split("\n")
    .filter(Boolean)
    .map((path) => path.slice("/data/octavo/".length, -"._S3rver_object".length));
  // OCTAVO_STORAGE_URL is s3://octavo/files: a file's key lies under the prefix "files/".
  const held = new Set(liveFiles.map((file) => `files/${file.storage_key}`));
  const orphans = found.filter((key) => !held.has(key));
  const endedInputs = liveFiles.filter(
    (file) => file.role === "input" && file.status !== "queued" && file.status !== "active",
  );
  const problems = [
    ...orphans.map((key) => `object ${key} belongs to no job`),
    ...endedInputs.map((file) => `input ${file.storage_key} of an ended job is still stored`),
  ];
  return verdict(
    "storage holds nothing orphaned",
    problems,
    `${found.length} objects, each a live output of a done job`,
  );
}

/** The receiver's deliveries, signature checked against the account's secret. */
export function receivedDeliveries(fleet, secretOfJob) {
  const [receiver] = fleet.containersOf("webhook-receiver", { all: true });
  return logLines(receiver.name, "delivery").map((line) => {
    const body = JSON.parse(line.body);
    const secret = secretOfJob(body.id);
    const t = /t=(\d+)/.exec(line.signature ?? "")?.[1];
    const expected = secret && createHmac("sha256", secret).update(`${t}.${line.body}`).digest();
    const signed =
      expected !== undefined &&
      [...(line.signature ?? "").matchAll(/v1=([0-9a-f]{64})/g)].some(([, hex]) =>
        timingSafeEqual(Buffer.from(hex, "hex"), expected),
      );
    const { answered, webhookId } = line;
    return { jobId: body.id, status: body.status, answered, webhookId, at: Date.parse(line.at), signed };
  });
}

/**
 * Every webhook owed arrived, signed, with the job's final status, and was taken (2xx). A delivery the
 * service gave up on is allowed only as the spec allows: all four attempts made, every one while the
 * receiver was broken.
 */
export function webhooksDelivered({ jobs, deliveries }, received, receiverWindows) {
  const problems = [];
  const taken = new Map();
  for (const delivery of received) {
    if (!delivery.signed)
      problems.push(`a delivery for ${delivery.jobId} is not signed with its account's secret`);
    if (delivery.answered < 300) taken.set(delivery.jobId, [...(taken.get(delivery.jobId) ?? []), delivery]);
  }
  const rowOf = new Map(deliveries.map((delivery) => [delivery.job_id, delivery]));
  let givenUp = 0;
  for (const job of jobs) {
    const arrivals = taken.get(job.id) ?? [];
    if (arrivals.length > 0) {
      if (!arrivals.some((arrival) => arrival.status === job.status))
        problems.push(
          `${job.id} ended ${job.status}, its webhook said ${arrivals.map((a) => a.status).join(",")}`,
        );
      // Duplicates are the receiver's to drop, by the delivery id every copy carries.
      if (new Set(arrivals.map((arrival) => arrival.webhookId)).size !== 1 || !arrivals[0]?.webhookId)
        problems.push(`${job.id}'s copies do not carry one SVC-Webhook-Id`);
      continue;
    }
    const row = rowOf.get(job.id);
    const times = (row?.attempt_times ?? []).map((time) => Date.parse(time));
    const excused =
      row?.status === "failed" &&
      row.attempts === WEBHOOK_ATTEMPTS &&
      times.every((time) => duringFaults(receiverWindows, time, time, 12_000));
    if (excused) givenUp += 1;
    else
      problems.push(
        `${job.id}: no webhook taken (delivery ${row?.status ?? "none"}, ${row?.attempts ?? 0} attempts)`,
      );
  }
  const duplicates = [...taken.values()].reduce((sum, list) => sum + list.length - 1, 0);
  const counts = { owed: jobs.length, delivered: taken.size, duplicates, givenUp };
  return {
    ...verdict(
      "every webhook owed arrived, signed, with the final status",
      problems,
      `${counts.owed} owed, ${counts.delivered} taken, ${counts.duplicates} duplicates, ${givenUp} given up after 4 attempts all inside receiver faults`,
    ),
    counts,
  };
}

/** Every refusal a 429 or a 503 with Retry-After; every request answered. */
export function refusalsClean(answers) {
  const problems = [];
  const byKind = new Map();
  for (const answer of answers) {
    if (answer.status < 400 && answer.status !== 0) continue;
    const expected =
      answer.status === 429 ||
      (answer.status === 503 && answer.retryAfter !== null) ||
      (answer.status === 409 && answer.path.endsWith("/cancel"));
    const kind =
      answer.status === 0 ? "no answer" : `${answer.status}${answer.retryAfter ? " with Retry-After" : ""}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    if (!expected)
      problems.push(
        `${answer.method} ${answer.path}: ${kind} ${answer.lost ?? answer.error?.slice(0, 160) ?? ""}`,
      );
  }
  const tally = [...byKind].map(([kind, count]) => `${count}× ${kind}`).join(", ") || "none";
  return verdict(
    "every refusal a 429 or a 503 with Retry-After",
    problems,
    `${answers.length} answers; refusals: ${tally}`,
  );
}

/**
 * Nothing crash-looped: Docker restarted no container more often than there were faults of the services
 * every process needs (a process that starts while Redis or PostgreSQL is away exits, and Docker starts it
 * again). The faults' own restarts are by hand, which Docker does not count.
 */
export function noCrashLoops(project, windows) {
  const explaining = windows.filter((window) => /Redis|PostgreSQL|S3/.test(window.name)).length;
  const ids = run("docker", ["ps", "-aq", "--filter", `label=com.docker.compose.project=${project}`])
    .stdout.split("\n")
    .filter(Boolean);
  const problems = [];
  const restarted = [];
  for (const id of ids) {
    const format = "{{.Name}} {{.RestartCount}} {{.State.Status}}";
    const [name, restarts, state] = run("docker", ["inspect", "--format", format, id])
      .stdout.trim()
      .split(" ");
    const container = name.slice(1);
    if (Number(restarts) > 0) restarted.push(`${container} ${restarts}×`);
    if (Number(restarts) > explaining) problems.push(`${container} restarted ${restarts}× by Docker`);
    if (state !== "running" && !/migrate|minio-init/.test(container))
      problems.push(`${container} is ${state}`);
  }
  const detail = `${ids.length} containers; restarted by Docker: ${restarted.join(", ") || "none"} (at most ${explaining} each explained by the backing-service faults)`;
  return verdict("nothing crash-looped", problems, detail);
}

/** Each service's memory (docker stats, summed over its containers), in MiB. */
export function memoryByService(fleet, services) {
  const usage = new Map(
    run("docker", ["stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}"])
      .stdout.split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name, mem] = line.split("\t");
        const [, value, unit] = /^([\d.]+)\s*([KMG]i?B)/.exec(mem) ?? [];
        const mib =
          Number(value) * ({ KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1000, MB: 1, GB: 1000 }[unit] ?? 0);
        return [name, mib];
      }),
  );
  return Object.fromEntries(
    services.map((service) => [
      service,
      fleet.containersOf(service).reduce((sum, { name }) => sum + (usage.get(name) ?? 0), 0),
    ]),
  );
}

/**
 * Memory flat: none of octavo's services (`judged`) grew by more than 20 % from after the warm-up to the
 * end. The others are shown: Redis and the S3 store grow with what they hold by design (finished jobs are
 * kept an hour, outputs for the result TTL), and the receiver is the run's own.
 */
export function memoryFlat(before, after, judged = Object.keys(before)) {
  const problems = [];
  const rows = [];
  for (const [service, start] of Object.entries(before)) {
    const end = after[service] ?? 0;
    rows.push(
      `${service} ${start.toFixed(0)}→${end.toFixed(0)} MiB${judged.includes(service) ? "" : " (shown)"}`,
    );
    if (judged.includes(service) && end > start * 1.2)
      problems.push(`${service} grew ${start.toFixed(0)} → ${end.toFixed(0)} MiB`);
  }
  return verdict(
    "memory flat (octavo's services within +20 % of their warm-up value)",
    problems,
    rows.join(", "),
  );
}
