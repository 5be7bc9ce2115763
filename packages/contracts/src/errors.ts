/** Codes a failed job carries in its `error` field (spec: "States and transitions"). */
export const jobErrorCodes = [
  "password_required",
  "wrong_password",
  "invalid_input",
  "conversion_failed",
  "no_tables",
  "timeout",
  "canceled",
  "invalid_options",
] as const;

export type JobErrorCode = (typeof jobErrorCodes)[number];

export const jobErrors: Record<JobErrorCode, { description: string }> = {
  password_required: {
    description: "The PDF is encrypted; run the unlock operation with the password first.",
  },
  wrong_password: { description: "The password given to the unlock operation is incorrect." },
  invalid_input: { description: "The file is damaged or is not what its extension says." },
  conversion_failed: { description: "The converter could not process the file." },
  no_tables: { description: "PDF to Excel in tables mode found no tables." },
  timeout: { description: "The job ran longer than 5 minutes." },
  canceled: {
    description:
      "The job was canceled (POST /v1/jobs/{job_id}/cancel) before it finished; nothing was charged.",
  },
  invalid_options: {
    description:
      "The options do not fit the document, which only the job could see (Fill form: a field it does not have, " +
      "a value of the wrong type, a bookmark split of a PDF without bookmarks); the message names each and why.",
  },
};

/** Codes of an error response body, each with its one HTTP status. */
export type ApiErrorCode =
  | "invalid_input"
  | "invalid_options"
  | "blocked_url"
  | "unreachable_url"
  | "missing_api_key"
  | "invalid_api_key"
  | "quota_exceeded"
  | "webhooks_not_in_plan"
  | "not_found"
  | "too_large"
  | "rate_limited"
  | "unavailable"
  | "invalid_request"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "job_finished"
  | "job_not_finished"
  | "invalid_link"
  | "link_expired"
  | "result_expired"
  | "internal_error";

export const apiErrors: Record<ApiErrorCode, { status: number; description: string }> = {
  invalid_input: { status: 400, description: "Wrong number or type of files for the endpoint." },
  invalid_options: { status: 400, description: "An option failed validation; detail names it." },
  blocked_url: { status: 400, description: "A file URL points to a private or blocked address." },
  unreachable_url: { status: 400, description: "A file URL could not be downloaded." },
  invalid_request: {
    status: 400,
    description:
      "The request is malformed: invalid JSON, an unsupported content type or a bad query parameter.",
  },
  missing_api_key: { status: 401, description: "No API key was sent in the Authorization header." },
  invalid_api_key: { status: 401, description: "The API key is malformed or revoked." },
  quota_exceeded: { status: 402, description: "The Free plan's credits for the calendar month are used up." },
  webhooks_not_in_plan: {
    status: 403,
    description: "webhook_url was sent on the Free plan; webhooks need a paid plan.",
  },
  invalid_link: { status: 403, description: "The download link's signature does not match." },
  link_expired: {
    status: 403,
    description: "The download link is older than 15 minutes; read the job again.",
  },
  not_found: { status: 404, description: "Unknown id, or a job of another account." },
  method_not_allowed: { status: 405, description: "The path exists but not with this HTTP method." },
  idempotency_conflict: {
    status: 409,
    description:
      "The Idempotency-Key was used with a different request, or a request with the same key is still being processed.",
  },
  job_finished: {
    status: 409,
    description:
      "The job has already ended (done or failed) and can no longer be canceled; detail gives its status.",
  },
  job_not_finished: {
    status: 409,
    description: "The job is still queued or running; cancel it, or delete it once it has ended.",
  },
  result_expired: {
    status: 410,
    description: "The output was deleted: results are kept for one hour after the job.",
  },
  too_large: { status: 413, description: "A file exceeds the plan's per-file size." },
  rate_limited: {
    status: 429,
    description: "Too many requests this minute; wait the number of seconds in the Retry-After header.",
  },
  internal_error: { status: 500, description: "An unexpected error in the service." },
  unavailable: { status: 503, description: "The endpoint is temporarily unavailable; retry later." },
};

/**
 * The API's one error type. The status comes from `apiErrors`, so a code can never be sent with
 * another status. `message` and `detail` are shown to the client: never put internal detail there.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly detail: string;
  /** Sent as the Retry-After header: when a refusal of the service's state may be tried again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ApiErrorCode,
    message: string,
    detail = "",
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.status = apiErrors[code].status;
    this.detail = detail;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The response body: `{ error, message, detail }`. */
  toBody(): { error: ApiErrorCode; message: string; detail: string } {
    return { error: this.code, message: this.message, detail: this.detail };
  }
}
