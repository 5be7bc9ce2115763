import { apiErrors, jobErrors } from "../errors.js";
import { laneOf } from "../lanes.js";
import { apiKeyPrefixes, inputLimits, serviceLimits, webhookSignatureHeader } from "../limits.js";
import { operations } from "../operations.js";
import { bytesPerMB, type PlanId, plans } from "../plans.js";

/* The document's long description, in Markdown, written from the same tables the service runs on. */

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function plansTable(): string {
  const rows = Object.values(plans).map((plan) => [
    plan.name,
    `${plan.priceUsdPerMonth}`,
    plan.creditsPerMonth.toLocaleString("en-US"),
    `${plan.requestsPerMinute}`,
    `${plan.maxFileBytes / bytesPerMB} MB`,
    plan.webhooks ? "yes" : "no",
    plan.overageUsdPer1000Credits === null
      ? "none: hard stop, 402 until next month"
      : `${plan.overageUsdPer1000Credits} USD per 1,000 credits`,
    `${plan.maxRunningJobs.light} / ${plan.maxRunningJobs.heavy}`,
  ]);
  return table(
    [
      "Plan",
      "USD per month",
      "Credits per month",
      "Requests per minute",
      "Max file",
      "Webhooks",
      "Overage",
      "Jobs running at once (light / heavy)",
    ],
    rows,
  );
}

const lightOperations = () =>
  operations
    .filter((operation) => laneOf(operation.id) === "light")
    .map((operation) => operation.id)
    .join(", ");

const count = (value: number) => value.toLocaleString("en-US");
const countRange = (min: number, max: number) => (min === max ? `${min}` : `${min}-${max}`);

function operationsTable(): string {
  const rows = operations.map((spec) => [
    spec.title,
    `POST ${spec.path}`,
    `${spec.credits}`,
    `${countRange(spec.files.min, spec.files.max)}; ${spec.files.extensions.join(" ")}`,
  ]);
  return table(["Operation", "Endpoint", "Credits", "Files"], rows);
}

function apiErrorsTable(): string {
  const rows = Object.entries(apiErrors).map(([code, entry]) => [`${entry.status}`, code, entry.description]);
  return table(["HTTP", "Code", "Meaning"], rows);
}

function jobErrorsTable(): string {
  return table(
    ["Code", "Meaning"],
    Object.entries(jobErrors).map(([code, entry]) => [code, entry.description]),
  );
}

const free: PlanId = "free";
const minutes = (seconds: number) => seconds / 60;

export function documentDescription(): string {
  const limits = serviceLimits;
  return `Asynchronous PDF processing over HTTP: convert, compress, repair, OCR, merge, split, rotate, protect and unlock.

## How it works
1. POST one or more files to an operation endpoint, as multipart/form-data uploads or as public URLs (the service downloads them; private network addresses are refused with blocked_url).
2. The answer is 202 with a job id, the credits the job will cost and a statusUrl.
3. Poll GET /v1/jobs/{job_id} until status is done or failed, or pass webhook_url (paid plans) to be called when it finishes.
4. Download each output from its signed link. Links last ${minutes(limits.downloadLinkTtlSeconds)} minutes; reading the job again gives a fresh one. Results are deleted ${limits.resultTtlSeconds / 3600} hour after the job; uploads as soon as the job has run.

A job running longer than ${minutes(limits.jobTimeoutSeconds)} minutes fails with timeout. GET /v1/jobs lists your jobs, newest first, with filters and cursor pages. POST /v1/jobs/{job_id}/cancel stops a queued or running job (it fails with canceled and costs nothing); DELETE /v1/jobs/{job_id} deletes a finished job's results at once. POST /v1/pipeline chains up to 5 operations in one job (one id, one webhook, the sum of the steps' credits).

## Authentication
Send \`Authorization: Bearer <API_KEY>\` on every request except downloads and health probes. Keys look like \`${apiKeyPrefixes.live}<random>\`, are created in the dashboard, shown once and stored only as a hash. Keep them in server code. A job can be read only by the account that created it.

## Credits and plans
A job costs a fixed number of credits, charged only when it succeeds. The ${plans[free].name} plan stops at its monthly credits (402 quota_exceeded); paid plans go on and bill the extra credits at the overage rate. Rate limits are per account per minute, size limits per file (1 MB = ${bytesPerMB.toLocaleString("en-US")} bytes).

${operationsTable()}

${plansTable()}

## Webhooks
When webhook_url is given (paid plans; 403 webhooks_not_in_plan on ${plans[free].name}), the service POSTs the job, the same JSON as GET /v1/jobs/{job_id}, once it is done or failed.
- Header \`${webhookSignatureHeader}: t=<unix_seconds>,v1=<hex_digest>\`.
- v1 is the hex HMAC-SHA256 of the string \`<t>.<raw_body>\` under the webhook signing secret from the dashboard. Compare it in constant time, and reject deliveries whose t is more than ${limits.webhookToleranceSeconds} seconds from your clock.
- A non-2xx answer, a 10 s timeout or a refused connection is retried ${limits.webhookRetries} times over about ${limits.webhookRetryWindowSeconds} seconds (5, 15 and 25 s later). A delivery can arrive more than once (an answer lost or later than the timeout, a worker stopped after sending): the header \`SVC-Webhook-Id\` names the delivery, the same on every copy; use it to drop duplicates.
- After a secret rotation both secrets sign for 24 hours: the header then holds two v1 entries, and a delivery is genuine when either matches.

## Request conventions
- **Idempotency-Key** (POST operation endpoints): the same key with the same request within 24 hours answers with the first response and creates no second job (header \`Idempotent-Replayed: true\`); the same key with a different request gives 409 idempotency_conflict.
- **X-Request-Id**: every response carries one; error bodies repeat it as requestId. Yours is echoed when it is 1 to 128 printable ASCII characters without spaces; any other value is replaced by a new id.
- **Rate limits**: every response of an authenticated route carries the IETF headers \`RateLimit-Policy\` and \`RateLimit\`; 429 comes with \`Retry-After\` in seconds. A method a path does not take (OPTIONS included: no CORS preflight is served) answers 405 method_not_allowed with an \`Allow\` header, before the key is read, so without RateLimit headers and without counting against the limit. \`GET /v1/jobs/{job_id}?wait=N\` holds the answer up to N seconds (at most 60) until the job ends.
- **URL inputs**: only http and https; loopback, private, link-local (cloud metadata), CGNAT, unique-local, multicast and reserved addresses are refused in every notation and on every redirect (blocked_url). A URL that cannot be downloaded gives unreachable_url; one larger than the plan allows gives 413 too_large. The file name comes from Content-Disposition, else the URL path, else the Content-Type.
- **Scheduling**: in each operation's queue, a job waits behind its own account's unfinished jobs of that operation, not behind other accounts' (accounts take turns). An account runs at most its plan's jobs at once (table above); light operations are ${lightOperations()}, the others are heavy. Operation endpoints answer 429 rate_limited, with Retry-After, while the account's own waiting jobs of that operation would take longer to run than the server's bound (5 minutes by default).
- **Request size**: a JSON body, or one field of a multipart form, holds at most ${limits.maxFieldBytes / bytesPerMB} MB (a JSON body over it answers 413 too_large, a form field 400 invalid_request); \`options\` and \`steps\` nest objects and arrays at most ${limits.maxSettingsDepth} levels deep (400 invalid_options). Files are limited by the plan, not by this.
- **Input limits**: before any engine works on a file, the job fails with invalid_input, naming the limit, when a PDF has more than ${count(inputLimits.maxPages)} pages or ${count(inputLimits.maxObjects)} objects, holds an image that decodes to more than ${inputLimits.maxImageBytes / bytesPerMB / 1024} GB or a stream that inflates to more than ${inputLimits.maxInflatedStreamBytes / bytesPerMB} MB, or when an Office file unpacks to more than ${inputLimits.maxUnpackedBytes / bytesPerMB} MB at over ${inputLimits.maxPackingRatio} times its size. An Office document that converts to a PDF with nothing visible on it ends done with a warning.
- **503 unavailable** with Retry-After when the service cannot take work (a backing service is unreachable, the queue is full: its waiting jobs would take longer to run than the server's bound, 15 minutes by default; or the operation's engine is not installed yet).

## Errors
Error responses are JSON \`{ error, message, detail, requestId }\`; for invalid_options, detail names the option and what it allows.

${apiErrorsTable()}

A failed job carries one of these codes in its error field, and a sentence in message:

${jobErrorsTable()}
`;
}
