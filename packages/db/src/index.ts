export {
  createDatabase,
  type DatabaseHandle,
  type DatabaseOptions,
  type Db,
  type DialectName,
  migrateToLatest,
  pingDatabase,
} from "./database.js";
export type * from "./rows.js";
export type * from "./schema/index.js";
