import { type ApiErrorCode, apiErrors } from "../errors.js";

/*
 * Error responses of the document: each references the one ErrorBody schema and shows one example
 * per code it can carry, so clients see exactly which codes a status means on each endpoint.
 */

const exampleDetails: Partial<Record<ApiErrorCode, string>> = {
  invalid_input: "merge takes 2 to 20 files; got 1",
  invalid_options: "angle: must be one of 90, 180, 270",
  blocked_url: "http://10.0.0.7/report.pdf resolves to a private address",
  unreachable_url: "https://example.com/missing.pdf answered 404",
  invalid_request: "the body is not valid JSON",
  too_large: "report.pdf is larger than 10 MB",
  job_finished: "status: done",
  job_not_finished: "status: active. Cancel it with POST /v1/jobs/{job_id}/cancel, or wait for it to end.",
};

function example(code: ApiErrorCode): Record<string, unknown> {
  const { description } = apiErrors[code];
  return {
    summary: code,
    value: { error: code, message: description, detail: exampleDetails[code] ?? "" },
  };
}

function errorResponse(
  description: string,
  codes: readonly ApiErrorCode[],
  headers?: Record<string, unknown>,
) {
  const examples = Object.fromEntries(codes.map((code) => [code, example(code)]));
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: {
      "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" }, examples },
    },
  };
}

/** components.responses: every error response, named for reuse by $ref. */
export const errorResponses = {
  BadRequest: errorResponse("The request, its files, URLs or options were refused.", [
    "invalid_input",
    "invalid_options",
    "blocked_url",
    "unreachable_url",
    "invalid_request",
  ]),
  Unauthorized: errorResponse("No API key, a malformed key or a revoked key.", [
    "missing_api_key",
    "invalid_api_key",
  ]),
  QuotaExceeded: errorResponse("The Free plan's credits for the calendar month are used up.", [
    "quota_exceeded",
  ]),
  NotInPlan: errorResponse("A feature that is not in the plan, such as webhook_url on the Free plan.", [
    "webhooks_not_in_plan",
  ]),
  NotFound: errorResponse("Unknown id, or a job of another account.", ["not_found"]),
  TooLarge: errorResponse("A file exceeds the plan's per-file size.", ["too_large"]),
  RateLimited: errorResponse(
    "Too many requests this minute; or, on an operation endpoint, the account's own waiting jobs of that operation would take too long to run.",
    ["rate_limited"],
    { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
  ),
  Conflict: errorResponse("The Idempotency-Key belongs to a different request, or to one still running.", [
    "idempotency_conflict",
  ]),
  JobFinished: errorResponse("The job has already ended (done or failed); detail gives its status.", [
    "job_finished",
  ]),
  JobNotFinished: errorResponse("The job is still queued or running.", ["job_not_finished"]),
  Unavailable: errorResponse(
    "Temporarily unavailable (database or queue unreachable, queue full: its waiting jobs would take too long to run); retry later.",
    ["unavailable"],
    {
      "Retry-After": { $ref: "#/components/headers/RetryAfter" },
    },
  ),
  InvalidLink: errorResponse("The download link is forged or has expired.", ["invalid_link", "link_expired"]),
  ResultExpired: errorResponse(
    "The result was deleted: one hour after the job, or at the caller's request (DELETE /v1/jobs/{job_id}).",
    ["result_expired"],
  ),
} as const;

export type ErrorResponseName = keyof typeof errorResponses;

export function responseRef(name: ErrorResponseName): { $ref: string } {
  return { $ref: `#/components/responses/${name}` };
}

export const retryAfterHeader = {
  description: "Seconds to wait before the next request.",
  schema: { type: "integer", minimum: 1 },
};
