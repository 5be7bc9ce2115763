import type { Generated } from "kysely";

/**
 * Portable column types: text UUIDs, ISO-8601 UTC timestamps as text (they sort correctly and read
 * the same on SQLite and PostgreSQL), JSON as text, integers for counts and flags.
 */
export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  /** Encrypted with the server's secret key (AES-256-GCM); see @octavo/core secret-box. */
  webhook_secret: string;
  /** The secret before the last rotation (sealed), still signing until its expiry. */
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: string | null;
  /** argon2id PHC string for the dashboard; null for accounts the operator made (no dashboard sign-in). */
  password_hash: string | null;
  created_at: string;
}

/** A key's mode, and its jobs': test jobs run the real engines, uncharged, apart from live ones. */
export type KeyMode = "live" | "test";

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** The first characters of the key, shown to identify it (`svc_live_AbCd1234`, `svc_test_…`). */
  prefix: string;
  /** Stored with the hash: the key's prefix says it too, but is never trusted for it. */
  mode: Generated<KeyMode>;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type JobStatus = "queued" | "active" | "done" | "failed";

export interface JobsTable {
  id: string;
  account_id: string;
  /** The mode of the key that made the job: a key sees its own mode's jobs only. */
  mode: Generated<KeyMode>;
  operation: string;
  /** Validated options with defaults applied, as JSON. */
  options: string;
  status: JobStatus;
  progress: number;
  credits: number;
  /** First day of the calendar month (UTC) whose credits the job reserves and is charged to. */
  period_start: string;
  error_code: string | null;
  error_message: string | null;
  /** The engine that produced the result (recorded for support and bake-offs). */
  engine: string | null;
  /** JSON array of warnings from the engine, for a done job. */
  warnings: string | null;
  /** JSON object the engine reported for a done job (e.g. the compression achieved). */
  report: string | null;
  webhook_url: string | null;
  /** The X-Request-Id of the request that created the job, for its log lines; null on older jobs. */
  request_id: string | null;
  /** A pipeline job's steps with their statuses (JSON array of the Job's `steps`); null otherwise. */
  steps: string | null;
  /** When the caller deleted the job's results (DELETE /v1/jobs/{id}); null otherwise. */
  results_deleted_at: string | null;
  /** How many times a worker started the job (more than one after a worker died). */
  attempts: Generated<number>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type JobFileRole = "input" | "output";

export interface JobFilesTable {
  id: string;
  job_id: string;
  role: JobFileRole;
  position: number;
  name: string;
  size: number;
  content_type: string;
  storage_key: string;
  /**
   * Inputs only: the named upload field the file came in (Sign PDF's `certificate`), or `secret-options`
   * for the sealed secret options; null for the documents to process and for outputs.
   */
  field: string | null;
  /** Set when the stored object was deleted (inputs after the run, outputs after the result TTL). */
  deleted_at: string | null;
  created_at: string;
}

export type LedgerKind = "charge" | "adjustment";

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  period_start: string;
  kind: LedgerKind;
  /** charge: credits used by a finished job (positive). adjustment: a grant (+) or correction (-). */
  amount: number;
  job_id: string | null;
  reason: string | null;
  created_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** SHA-256 of the request (path, options, file contents, URLs, webhook URL). */
  fingerprint: string;
  status: "processing" | "done";
  response_status: number | null;
  response_body: string | null;
  created_at: string;
}

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";

export interface WebhookDeliveriesTable {
  id: string;
  job_id: string;
  account_id: string;
  url: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  started_at: string;
  /** Null when no HTTP answer came (refused, timeout, blocked). */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** A signed-in dashboard browser. Sliding expiry: extended while used, deleted once expired. */
export interface DashboardSessionsTable {
  /** SHA-256 of the session token, hex. The token itself is never stored. */
  id: string;
  account_id: string;
  created_at: string;
  expires_at: string;
  /** When the session was last used, to the day: it is written only when the expiry is extended. */
  last_seen_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  job_files: JobFilesTable;
  credit_ledger: CreditLedgerTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  dashboard_sessions: DashboardSessionsTable;
}
