/** The spec's fixed numbers that are not per plan, in one place so the API, workers and docs agree. */
export const serviceLimits = {
  /** A job running longer than this fails with `timeout`. */
  jobTimeoutSeconds: 5 * 60,
  /** Signed download links are valid this long; reading the job again gives a fresh one. */
  downloadLinkTtlSeconds: 15 * 60,
  /** Results are deleted this long after the job. */
  resultTtlSeconds: 60 * 60,
  /** Most entries in the JSON form's `urls`. */
  maxUrls: 20,
  /** Webhook retries after a failed first delivery, spread over about `webhookRetryWindowSeconds`. */
  webhookRetries: 3,
  webhookRetryWindowSeconds: 45,
  /** Receivers reject deliveries whose timestamp is further than this from their clock. */
  webhookToleranceSeconds: 300,
} as const;

export const webhookSignatureHeader = "SVC-Signature";
export const apiKeyPrefix = "svc_live_";
