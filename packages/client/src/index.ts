/**
 * The octavo API client for any runtime with `fetch`, `FormData` and Web Crypto: Node.js 20+, Deno,
 * Bun, edge runtimes and browsers. On Node.js the package's `node` export adds file paths and Node
 * streams; elsewhere pass bytes, Blobs or web streams.
 *
 * @module
 */
export {
  type ClientOptions,
  Octavo,
  type RunOptions,
  type Submit,
  type SubmitOptions,
} from "./client.js";
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  FileTooLargeError,
  JobFailedError,
  NotFoundError,
  OctavoError,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitError,
  UnavailableError,
  WaitTimeoutError,
} from "./errors.js";
export type { FileData, FileInput, Files, UploadProgress } from "./inputs.js";
export type { JobPage, Jobs, WaitOptions } from "./jobs.js";
export type { DoneJob, DownloadTarget, Job, NodeWritableLike, OutputFile } from "./outputs.js";
export type { RateLimitState } from "./rate-limit.js";
export type {
  Account,
  ApiJob,
  ApiOutput,
  ErrorBody,
  JobCreated,
  JobStatus,
  JobStep,
  ListJobsParams,
  OperationId,
  OperationOptions,
  PipelineStep,
} from "./types.js";
export { VERSION } from "./version.js";
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookFailure,
  WebhookVerificationError,
  webhookSignatureHeader,
} from "./webhooks.js";
