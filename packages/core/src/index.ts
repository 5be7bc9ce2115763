export {
  AccountError,
  AccountService,
  type ApiKeySummary,
  type Authentication,
  type CreatedAccount,
  isPlanId,
} from "./accounts.js";
export {
  type DownloadLink,
  type DownloadLinks,
  PresignedDownloadLinks,
  type PresignGet,
} from "./download-links.js";
export { FileLinkSigner } from "./file-links.js";
export { IDEMPOTENCY_RETENTION_MS, type IdempotencyOutcome, IdempotencyService } from "./idempotency.js";
export { type CompletedWork, JobService, type NewJob, QuotaExceededError, type StoredFile } from "./jobs.js";
export {
  API_KEY_PREFIX,
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  isWellFormedApiKey,
  openSecret,
  sealSecret,
} from "./secrets.js";
export { type BillingPeriod, billingPeriodOf, newId, toIso } from "./time.js";
export { type Usage, usageOf } from "./usage.js";
export { jobView } from "./views.js";
export { webhookSignature } from "./webhook-signature.js";
