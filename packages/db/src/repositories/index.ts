// The SQL of each table, for @octavo/core only: apps go through core's services.
export { kyselyOf } from "../database.js";
export * from "./account-locks.repository.js";
export * from "./accounts.repository.js";
export * from "./api-keys.repository.js";
export * from "./dashboard-sessions.repository.js";
export * from "./idempotency.repository.js";
export * from "./jobs.repository.js";
export * from "./ledger.repository.js";
export * from "./webhooks.repository.js";
