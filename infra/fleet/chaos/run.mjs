// What the chaos run and the upgrade run share: the fleet up with its customers, the drain, the
// invariants checked from what the run left, and the printed summary.
import { ROLES, waitFor } from "../fleet.mjs";
import {
  acceptedExactlyOnce,
  chargesExact,
  duringFaults,
  everyJobEnded,
  gather,
  memoryFlat,
  noCrashLoops,
  outputsComplete,
  receivedDeliveries,
  refusalsClean,
  storageClean,
  webhooksDelivered,
} from "./invariants.mjs";

const DRAIN_MS = 15 * 60_000;
export const PLANS = ["starter", "pro", "business"];

/**
 * `up -d` on images already built (two API nodes, two worker-pdf), ready behind the proxy; then the
 * customers, one account per plan. `env` overrides the project's compose environment (IMAGE_TAG).
 */
export async function startFleet(fleet, log, env = fleet.env) {
  fleet.compose(["up", "-d", "--no-build", "--scale", "api=2", "--scale", "worker-pdf=2"], { env });
  await waitFor("the proxy's /readyz", async () => (await fetch(`${fleet.baseUrl}/readyz`)).ok, 240_000);
  const accounts = [];
  for (const plan of PLANS) accounts.push(await fleet.createAccount(plan));
  log(`accounts: ${PLANS.join(", ")}`);
  return accounts;
}

/** Waits for every job to end and every webhook delivery to settle; false if some never did. */
export async function drain(fleet, log) {
  const unsettled = () =>
    fleet.sql(
      "select (select count(*) from jobs where status in ('queued', 'active')) + (select count(*) from webhook_deliveries where status = 'pending')",
    );
  const drained = await waitFor("the drain", async () => unsettled() === "0", DRAIN_MS, 5_000).then(
    () => true,
    () => false,
  );
  if (!drained) log(`not drained after ${DRAIN_MS / 60_000} min: the invariants say what is left`);
  return drained;
}

/**
 * Every invariant, from the database, S3, the receiver's log and the API. `memory`: the warm-up and end
 * samples, or undefined where they cannot be compared (an upgrade replaces every process).
 */
export async function checkOutcome({ fleet, accounts, submissions, answers, windows, memory }) {
  const state = gather(fleet);
  const reserved = [];
  const doneJobs = [];
  const { Octavo } = await import("../../../packages/client/dist/node.js");
  for (const account of accounts) {
    const client = new Octavo({ apiKey: account.apiKey, baseUrl: fleet.baseUrl });
    const me = await client.account.get();
    account.id = me.id;
    reserved.push({ plan: account.plan, reserved: me.creditsReserved });
    for await (const job of client.jobs.all({ status: "done", includeOutputs: true, limit: 100 }))
      doneJobs.push(job);
  }
  const secretOfAccount = new Map(accounts.map((account) => [account.id, account.webhookSecret]));
  const accountOfJob = new Map(state.jobs.map((job) => [job.id, job.account_id]));
  const received = receivedDeliveries(fleet, (jobId) => secretOfAccount.get(accountOfJob.get(jobId)));
  const receiverWindows = windows.filter((window) => window.name.startsWith("webhook receiver"));
  const webhooks = webhooksDelivered(state, received, receiverWindows);
  const checks = [
    everyJobEnded(state, submissions),
    acceptedExactlyOnce(state, submissions),
    chargesExact(state, reserved),
    await outputsComplete(doneJobs),
    storageClean(state, fleet),
    webhooks,
    refusalsClean(answers),
    noCrashLoops(fleet.project, windows),
    ...(memory ? [memoryFlat(memory.warm, memory.end, ROLES)] : []),
  ];
  return { state, checks, webhooks: webhooks.counts };
}

const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
export const seconds = (ms) => (ms / 1000).toFixed(1);

/** The run's summary: what was done to the fleet, the jobs, their times, the webhooks, the invariants. */
export function summary({ title, submissions, windows, state, webhooks, checks }) {
  const failedBy = new Map();
  for (const job of state.jobs.filter((job) => job.status === "failed"))
    failedBy.set(job.error_code, (failedBy.get(job.error_code) ?? 0) + 1);
  const times = { outside: [], during: [] };
  for (const job of state.jobs.filter((job) => job.status === "done")) {
    const from = Date.parse(job.created_at);
    const to = Date.parse(job.finished_at);
    times[duringFaults(windows, from, to) ? "during" : "outside"].push(to - from);
  }
  const done = state.jobs.filter((job) => job.status === "done").length;
  const failed = [...failedBy].map(([code, n]) => `${code} ${n}`).join(", ") || "none";
  const lines = [
    title,
    `disruptions (${windows.length}):`,
    ...windows.map((w) => `  ${seconds(w.start - windows[0].start).padStart(6)} s  ${w.name}: ${w.did}`),
    `jobs: ${submissions.length} submitted, ${state.jobs.length} accepted, ${done} done, failed by cause: ${failed}`,
    ...Object.entries(times).map(
      ([when, list]) =>
        `accept → done ${when === "during" ? "during disruptions " : "outside disruptions"}: ${list.length} jobs, p50 ${seconds(percentile(list, 50))} s, p99 ${seconds(percentile(list, 99))} s`,
    ),
    `webhooks: ${webhooks.owed} owed, ${webhooks.delivered} delivered, ${webhooks.duplicates} duplicates, ${webhooks.givenUp} given up as the spec allows`,
    "invariants:",
    ...checks.map((check) => `  ${check.pass ? "pass" : "FAIL"}  ${check.name}: ${check.detail}`),
  ];
  return `\n${lines.join("\n")}\n`;
}
