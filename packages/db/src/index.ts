export {
  createDatabase,
  type DatabaseHandle,
  type Db,
  type DialectName,
  migrateToLatest,
  pingDatabase,
} from "./database.js";
export * from "./repositories/accounts.repository.js";
export * from "./repositories/api-keys.repository.js";
export * from "./repositories/dashboard-sessions.repository.js";
export * from "./repositories/idempotency.repository.js";
export * from "./repositories/jobs.repository.js";
export * from "./repositories/ledger.repository.js";
export * from "./repositories/webhooks.repository.js";
export type * from "./schema/index.js";
