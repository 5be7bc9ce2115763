// The chaos run's customers: accounts on different plans sending a steady, seeded mix of jobs through
// the proxy with the SDK (its retries, its Idempotency-Key on every POST). Every answer the SDK got is
// recorded, so the run can show each refusal was a 429 or a 503 with Retry-After.
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ROOT } from "../fleet.mjs";
import { corpus, sample } from "../operation-jobs.mjs";

const { Octavo } = await import(join(ROOT, "packages/client/dist/node.js"));

const WEBHOOK_URL = "http://webhook-receiver:8099/hook";
const sampleB = join(ROOT, "examples", "sample-b.pdf");
const longOcr = corpus("scanned/tesseract_phototest.pdf");
/** The user password of the protect jobs, which reading their outputs takes. */
export const PROTECT_PASSWORD = "chaos";

/**
 * What the customers send, with the share of submissions each takes. `cancel` jobs are canceled once
 * they run; `twice` jobs are sent twice under one Idempotency-Key and must make one job.
 */
export const MIX = [
  { kind: "light", weight: 10, operation: "rotate", files: [sample], options: { angle: 90 } },
  { kind: "light", weight: 6, operation: "merge", files: [sample, sampleB] },
  {
    kind: "light",
    weight: 5,
    operation: "split",
    files: [corpus("general/samplefiles_GeoTopo-komprimiert.pdf")],
    options: { ranges: "1,2-3" },
  },
  {
    kind: "light",
    weight: 5,
    operation: "protect",
    files: [sample],
    options: { userPassword: PROTECT_PASSWORD },
  },
  { kind: "heavy", weight: 4, operation: "compress", files: [sampleB] },
  { kind: "heavy", weight: 4, operation: "ocr", files: [longOcr], options: { languages: ["eng"] } },
  { kind: "heavy", weight: 3, operation: "pdf-to-pdfa", files: [sample], options: { level: "2" } },
  { kind: "heavy", weight: 3, operation: "pdf-to-word", files: [sample] },
  {
    kind: "office",
    weight: 4,
    operation: "word-to-pdf",
    files: [corpus("office/docling_text_document_01.odt")],
  },
  { kind: "office", weight: 3, operation: "html-to-pdf", files: [corpus("html/gotenberg_wide-table.html")] },
  { kind: "office", weight: 2, operation: "excel-to-pdf", files: [corpus("office/docling_xlsx_01.xlsx")] },
  {
    kind: "pipeline",
    weight: 5,
    files: [sample],
    steps: [{ operation: "rotate", options: { angle: 90 } }, { operation: "compress" }],
  },
  { kind: "cancel", weight: 3, operation: "ocr", files: [longOcr], options: { languages: ["eng"] } },
  { kind: "twice", weight: 5, operation: "rotate", files: [sample], options: { angle: 180 } },
];

/** A client whose every answer (status, Retry-After, path) is written down, and every lost request too. */
function recordingClient(account, baseUrl, answers) {
  const recordingFetch = async (input, init) => {
    const at = Date.now();
    const path = new URL(String(input)).pathname;
    try {
      const response = await fetch(input, init);
      answers.push({
        at,
        account: account.plan,
        method: init?.method ?? "GET",
        path,
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        error: response.status >= 400 ? await response.clone().text() : undefined,
      });
      return response;
    } catch (error) {
      answers.push({
        at,
        account: account.plan,
        method: init?.method ?? "GET",
        path,
        status: 0,
        lost: String(error),
      });
      throw error;
    }
  };
  // Faults last up to a minute; the SDK's retries (with Retry-After and backoff) must outlast them.
  return new Octavo({ apiKey: account.apiKey, baseUrl, maxRetries: 12, fetch: recordingFetch });
}

/**
 * Sends the mix at `perMinute` submissions a minute over the accounts, in turn, for `durationMs` or
 * until the promise `until` resolves: one of each entry first, then drawn by weight. Returns every
 * submission with its job id (or the error the SDK gave up with) and every answer.
 */
export async function sendTraffic({
  accounts,
  baseUrl,
  random,
  durationMs = Infinity,
  until,
  perMinute,
  log,
}) {
  let stopped = false;
  until?.then(() => {
    stopped = true;
  });
  const answers = [];
  const clients = accounts.map((account) => ({
    account,
    client: recordingClient(account, baseUrl, answers),
  }));
  const totalWeight = MIX.reduce((sum, entry) => sum + entry.weight, 0);
  const pick = () => {
    let r = random() * totalWeight;
    for (const entry of MIX) {
      r -= entry.weight;
      if (r < 0) return entry;
    }
    return MIX.at(-1);
  };
  const submissions = [];
  const pending = [];
  const end = Date.now() + durationMs;
  for (let n = 0; Date.now() < end && !stopped; n += 1) {
    const { account, client } = clients[n % clients.length];
    // The first round sends one of each, so every engine has started before the warm-up minute ends.
    const entry = n < MIX.length ? MIX[n] : pick();
    const submission = { n, account: account.plan, accountId: account.id, ...entry, submittedAt: Date.now() };
    submissions.push(submission);
    pending.push(submit(client, submission).catch((error) => (submission.error = String(error))));
    if (n % 50 === 49) log(`traffic: ${n + 1} submissions sent`);
    await delay(60_000 / perMinute);
  }
  await Promise.all(pending);
  return { submissions, answers };
}

async function submit(client, submission) {
  const request = { webhookUrl: WEBHOOK_URL, idempotencyKey: `chaos-${process.pid}-${submission.n}` };
  const create = () =>
    submission.kind === "pipeline"
      ? client.pipeline(submission.files, submission.steps, request)
      : client.submit(submission.operation, submission.files, submission.options, request);
  const created = await create();
  submission.id = created.id;
  submission.acceptedAt = Date.now();
  if (submission.kind === "twice") submission.secondId = (await create()).id;
  if (submission.kind === "cancel") await cancelOnceRunning(client, submission);
}

/** Waits (a minute at most) for the job to run, then cancels it; it may have ended first. */
async function cancelOnceRunning(client, submission) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await client.jobs.get(submission.id);
    if (job.status === "done" || job.status === "failed") {
      submission.cancel = `ended ${job.status} first`;
      return;
    }
    if (job.status === "active" || Date.now() > deadline) break;
    await delay(1000);
  }
  try {
    const job = await client.jobs.cancel(submission.id);
    submission.cancel = `canceled while ${job.status === "failed" ? "running" : job.status}`;
  } catch (error) {
    // 409: it ended between the read and the cancel.
    if (error?.status !== 409) throw error;
    submission.cancel = "ended first (409)";
  }
}
