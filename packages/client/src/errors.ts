import type { ApiJob } from "./types.js";

interface ErrorFields {
  /** The error code, as in the API's error body (`invalid_options`) or a failed job (`password_required`). */
  error: string;
  message: string;
  detail?: string | undefined;
  status?: number | undefined;
  requestId?: string | undefined;
}

/** Every error the SDK throws. `error` is the code; `detail`, `status` and `requestId` when known. */
export class OctavoError extends Error {
  override name = "OctavoError";
  /** The error code: the API's (`invalid_options`, `rate_limited`), a failed job's, or the SDK's own. */
  readonly error: string;
  readonly detail: string | undefined;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The answer's X-Request-Id: quote it when asking for support. */
  readonly requestId: string | undefined;

  constructor(fields: ErrorFields, options?: ErrorOptions) {
    super(fields.message, options);
    this.error = fields.error;
    this.detail = fields.detail;
    this.status = fields.status;
    this.requestId = fields.requestId;
  }

  /** The same as `error`. */
  get code(): string {
    return this.error;
  }
}

/** The API answered with an error (4xx or 5xx). */
export class ApiError extends OctavoError {
  override name = "ApiError";
  declare readonly status: number;
}
/** 400: a wrong number or type of files, an invalid option (detail names it), a blocked or unreachable URL. */
export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
/** 401: no key, a malformed key or a revoked key. */
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
/** 402: the Free plan's credits for the month are used up. */
export class QuotaExceededError extends ApiError {
  override name = "QuotaExceededError";
}
/** 403: a feature not in the plan, e.g. webhooks on Free. */
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError";
}
/** 404: an unknown job, or another account's. */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** 409: an Idempotency-Key reused for another request, or a job in the wrong state for the action. */
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
/** 413: a file over the plan's per-file size. */
export class FileTooLargeError extends ApiError {
  override name = "FileTooLargeError";
}
/** 429: too many requests this minute, after the SDK's retries. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  /** Seconds the API asked to wait (Retry-After). */
  retryAfter: number | undefined;
}
/** 503: the service is temporarily unavailable, after the SDK's retries. */
export class UnavailableError extends ApiError {
  override name = "UnavailableError";
}

const errorClasses: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: QuotaExceededError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: FileTooLargeError,
  429: RateLimitError,
  503: UnavailableError,
};

/** The typed error of an API answer. */
export function apiErrorFor(fields: ErrorFields & { status: number }, retryAfter?: number): ApiError {
  const ErrorClass = errorClasses[fields.status] ?? ApiError;
  const error = new ErrorClass(fields);
  if (error instanceof RateLimitError) error.retryAfter = retryAfter;
  return error;
}

/** The request never got an answer: DNS, refused connection, reset, or the request timed out. */
export class ConnectionError extends OctavoError {
  override name = "ConnectionError";
}

/** `jobs.wait` ran out of time before the job ended; `job` is the last state seen. */
export class WaitTimeoutError extends OctavoError {
  override name = "WaitTimeoutError";
  constructor(readonly job: ApiJob) {
    super({
      error: "wait_timeout",
      message: `Job ${job.id} is still ${job.status}; wait longer or poll it later.`,
    });
  }
}

/** The job ended `failed`; `error` is its code (`password_required`, `timeout`…) and `job` the job. */
export class JobFailedError extends OctavoError {
  override name = "JobFailedError";
  constructor(readonly job: ApiJob) {
    super({
      error: job.error ?? "failed",
      message: job.message ?? `Job ${job.id} failed.`,
    });
  }
}
