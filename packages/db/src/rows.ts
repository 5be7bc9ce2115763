import type { Selectable } from "kysely";
import type {
  AccountsTable,
  ApiKeysTable,
  DashboardSessionsTable,
  IdempotencyKeysTable,
  JobFilesTable,
  JobsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
} from "./schema/index.js";

/** The rows as read from each table. */
export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
export type JobRow = Selectable<JobsTable>;
export type JobFileRow = Selectable<JobFilesTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
