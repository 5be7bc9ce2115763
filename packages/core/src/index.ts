/** Whose jobs a caller sees and makes: its account's, of its key's mode. */
export type { JobOwner } from "@octavo/db/repositories";
export {
  AccountError,
  AccountService,
  type ApiKeySummary,
  type Authentication,
  type CreateAccountOptions,
  type CreatedAccount,
  type CreatedAccountWithoutKey,
  isEmailAddress,
  isPlanId,
  normalizeEmail,
} from "./accounts.js";
export { refuseOverBacklog, requireOffered, requireWebhooksInPlan } from "./admission.js";
export {
  BacklogEstimator,
  type BacklogLimits,
  type BacklogVerdict,
  type QueueGauge,
} from "./backlog.js";
export {
  CustomerAuth,
  type CustomerSession,
  DUMMY_PASSWORD_HASH,
  hashSessionToken,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  type NewSession,
  PASSWORD_HASH_OPTIONS,
  passwordProblem,
  SESSION_LIFETIME_MS,
  SignInError,
  SignUpError,
} from "./customer-auth.js";
export {
  type CreditsChartDay,
  creditsChart,
  MAX_RECENT_JOBS,
  type RecentJob,
  recentJobs,
} from "./dashboard-views.js";
export {
  type DownloadLink,
  type DownloadLinks,
  PresignedDownloadLinks,
  type PresignGet,
} from "./download-links.js";
export { FileLinkSigner } from "./file-links.js";
export { Housekeeping } from "./housekeeping.js";
export {
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyConflictError,
  type IdempotencyOutcome,
  IdempotencyService,
} from "./idempotency.js";
export { type JobActionPorts, JobActions } from "./job-actions.js";
export { followJobEnd, type JobEndPorts } from "./job-end.js";
export { type EndedJobFacts, endedJobFacts } from "./job-facts.js";
export { InvalidCursorError, type JobListQuery, type JobPage } from "./job-list.js";
export {
  type AcceptedJob,
  type Cancellation,
  type CompletedWork,
  type JobQueue,
  JobService,
  type NewJob,
  type Outcome,
  type QueuedJob,
  QuotaExceededError,
  type Settled,
  type StartAttempt,
  type StartedJob,
  type StoredFile,
} from "./jobs.js";
export {
  openSecretOptions,
  sealSecretOptions,
  secretOptionsField,
  splitSecretOptions,
} from "./secret-options.js";
export {
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  isWellFormedApiKey,
  openSecret,
  sealSecret,
} from "./secrets.js";
export { type BillingPeriod, billingPeriodOf, newId, toIso } from "./time.js";
export { type TestUsage, testUsageOf, type Usage, usageOf } from "./usage.js";
export { jobView } from "./views.js";
export {
  type AttemptRecord,
  type PendingDelivery,
  recordWebhookDelivery,
  WebhookDeliveries,
} from "./webhook-deliveries.js";
export { webhookSignature } from "./webhook-signature.js";
