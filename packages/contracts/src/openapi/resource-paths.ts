import { serviceLimits } from "../limits.js";
import { jobKinds } from "../operation-ids.js";
import { operations } from "../operations.js";
import { jobStatuses } from "../resources.js";
import { responseRef } from "./error-responses.js";

/* The read endpoints: jobs, account, downloads and the health probes. */

function jsonResponse(description: string, schemaName: string): Record<string, unknown> {
  return {
    description,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaName}` } } },
  };
}

function pathParameter(name: string, description: string, schema: Record<string, unknown>) {
  return { name, in: "path", required: true, description, schema };
}

// No "uuid" format: the spec answers any id that is not one of the caller's jobs with 404 not_found,
// and a declared format would tell clients (and validating proxies) to expect 400 instead.
const jobIdParameter = pathParameter(
  "job_id",
  "Job identifier: the id the job was created with (a UUID). Any other value answers 404 not_found.",
  { type: "string", minLength: 1 },
);

const deleteJobResults = {
  operationId: "deleteJobResults",
  tags: ["Jobs"],
  summary: "Delete a job's results",
  description:
    "Deletes a finished job's outputs from storage at once, instead of one hour after the job. The job stays, with its status and credits; its outputs then read `deleted: true`, `expired: true` and have no `url`, and their old links answer 410 result_expired. Deleting again answers 204 again. A job still queued or running answers 409 job_not_finished.",
  parameters: [jobIdParameter],
  responses: {
    "204": { description: "The results are deleted." },
    "401": responseRef("Unauthorized"),
    "404": responseRef("NotFound"),
    "409": responseRef("JobNotFinished"),
    "429": responseRef("RateLimited"),
  },
};

const cancelJob = {
  post: {
    operationId: "cancelJob",
    tags: ["Jobs"],
    summary: "Cancel a job",
    description:
      "A queued job is taken off its queue; a running job has its engines stopped. Either ends `failed` with error `canceled`, is not charged, has its inputs deleted, and sends its webhook like any failed job. A job that ends before the cancellation lands keeps its outcome, and the answer is 409 job_finished with its status in `detail`.",
    parameters: [jobIdParameter],
    responses: {
      "200": jsonResponse("The canceled job.", "Job"),
      "401": responseRef("Unauthorized"),
      "404": responseRef("NotFound"),
      "409": responseRef("JobFinished"),
      "429": responseRef("RateLimited"),
    },
  },
};

const getJob = {
  get: {
    operationId: "getJob",
    tags: ["Jobs"],
    summary: "Read a job",
    description:
      "The job's status and, when done, its outputs with fresh download links. With `wait`, the answer is held until the job is done or failed, or the seconds pass: one request instead of many polls (each request counts against the rate limit).",
    parameters: [
      jobIdParameter,
      {
        name: "wait",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 0, maximum: 60, default: 0 },
        description: "Hold the answer up to this many seconds until the job ends.",
      },
    ],
    responses: {
      "200": {
        ...jsonResponse("The job.", "Job"),
        headers: {
          "Retry-After": {
            description:
              "Sent while the job is queued or running: the seconds before polling again is worth it (or use wait).",
            schema: { type: "integer", minimum: 1 },
          },
        },
      },
      "400": responseRef("BadRequest"),
      "401": responseRef("Unauthorized"),
      "404": responseRef("NotFound"),
      "429": responseRef("RateLimited"),
    },
  },
  delete: deleteJobResults,
};

function queryParameter(name: string, description: string, schema: Record<string, unknown>) {
  return { name, in: "query", required: false, description, schema };
}

const listJobs = {
  get: {
    operationId: "listJobs",
    tags: ["Jobs"],
    summary: "List jobs",
    description:
      "The caller's jobs, newest first, a page at a time. Pages follow `nextCursor`, which stays valid while new jobs arrive (they are newer than every page after the first). Filters combine. A parameter that is not valid, or not one of these, answers 400 invalid_options naming it.",
    parameters: [
      queryParameter("status", "Only jobs in this status.", { type: "string", enum: [...jobStatuses] }),
      queryParameter("operation", "Only jobs of this operation.", {
        type: "string",
        enum: [...jobKinds],
      }),
      queryParameter("createdAfter", "Only jobs accepted at or after this time (RFC 3339).", {
        type: "string",
        format: "date-time",
      }),
      queryParameter("createdBefore", "Only jobs accepted before this time (RFC 3339).", {
        type: "string",
        format: "date-time",
      }),
      queryParameter("limit", "Jobs per page.", { type: "integer", minimum: 1, maximum: 100, default: 20 }),
      queryParameter("cursor", "The nextCursor of the page before.", { type: "string" }),
      queryParameter("include", "outputs: each done job's outputs, with fresh download links.", {
        type: "string",
        enum: ["outputs"],
      }),
    ],
    responses: {
      "200": jsonResponse("A page of jobs.", "JobList"),
      "400": responseRef("BadRequest"),
      "401": responseRef("Unauthorized"),
      "429": responseRef("RateLimited"),
    },
  },
};

const getAccount = {
  get: {
    operationId: "getAccount",
    tags: ["Account"],
    summary: "Read the account",
    description: "The plan, its limits and the credits of the current period.",
    responses: {
      "200": jsonResponse("The account.", "Account"),
      "401": responseRef("Unauthorized"),
      "429": responseRef("RateLimited"),
    },
  },
};

const linkMinutes = serviceLimits.downloadLinkTtlSeconds / 60;

/**
 * A JSON output as it downloads: one of the documents the operations describe (PDF to Markdown's
 * MarkdownDocument), or another operation's JSON report (pdf-info's).
 */
const jsonOutput = {
  description:
    "A JSON output: the schema its operation names in x-octavo-output-document, or its own report.",
  anyOf: [
    ...operations.flatMap((spec) =>
      spec.output.document === undefined
        ? []
        : [{ $ref: `#/components/schemas/${spec.output.document.name}` }],
    ),
    { type: "object", additionalProperties: true },
  ],
};

const downloadFile = {
  get: {
    operationId: "downloadFile",
    tags: ["Files"],
    summary: "Download an output",
    description:
      `A signed link taken from a job's outputs; it needs no API key and works for ${linkMinutes} minutes. ` +
      "Read the job again for a fresh link. Results are deleted one hour after the job.",
    security: [],
    parameters: [
      pathParameter("output_id", "Output identifier.", { type: "string" }),
      pathParameter("name", "File name of the output.", { type: "string" }),
      {
        name: "expires",
        in: "query",
        required: true,
        description: "When the link expires, in Unix seconds.",
        schema: { type: "integer", minimum: 0 },
      },
      {
        name: "signature",
        in: "query",
        required: true,
        description: "Hex-encoded signature of the link.",
        schema: { type: "string", pattern: "^[0-9a-f]+$" },
      },
    ],
    responses: {
      "200": {
        description: "The file, streamed with its own Content-Type.",
        headers: {
          "Content-Disposition": {
            description: "attachment, with the file name.",
            schema: { type: "string" },
          },
        },
        content: {
          "application/json": { schema: jsonOutput },
          "*/*": { schema: { type: "string", format: "binary" } },
        },
      },
      "403": responseRef("InvalidLink"),
      "404": responseRef("NotFound"),
      "410": responseRef("ResultExpired"),
    },
  },
};

function probeAnswer(description: string, properties: Record<string, unknown>) {
  const schema = { type: "object", properties, required: Object.keys(properties) };
  return { description, content: { "application/json": { schema } } };
}

/** A probe's failure: the error body, with no error examples of the API's own. */
function errorAnswer(description: string) {
  return {
    description,
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
  };
}

function probe(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, unknown>,
) {
  return { get: { operationId, tags: ["Health"], summary, description, security: [], responses } };
}

export function resourcePaths(): Record<string, unknown> {
  return {
    "/v1/jobs": listJobs,
    "/v1/jobs/{job_id}": getJob,
    "/v1/jobs/{job_id}/cancel": cancelJob,
    "/v1/account": getAccount,
    "/v1/files/{output_id}/{name}": downloadFile,
    "/healthz": probe(
      "healthz",
      "Liveness: the process answers",
      "For an orchestrator's liveness probe. Nothing outside the process is checked, so an outage of the database or Redis does not restart every node. Needs no API key and does not count against a rate limit.",
      {
        "200": probeAnswer("Alive.", { status: { const: "ok" } }),
        "503": errorAnswer(
          "The process stopped working (a worker whose queue consumers all stopped); restart it.",
        ),
      },
    ),
    "/readyz": probe(
      "readyz",
      "Readiness: the service can take requests",
      "For a load balancer's or orchestrator's readiness probe: every required dependency (database, Redis, storage) must answer within 3 s. Needs no API key.",
      {
        "200": probeAnswer("Ready: every required dependency answered within 3 s.", {
          status: { const: "ready" },
          checks: {
            type: "object",
            description: 'Each dependency checked: "ok", or what went wrong with an advisory one.',
            additionalProperties: { type: "string" },
          },
        }),
        "503": errorAnswer(
          "Not ready: a dependency does not answer. detail holds each check's outcome, as JSON.",
        ),
      },
    ),
  };
}
