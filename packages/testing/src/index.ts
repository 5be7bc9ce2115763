export { type CorpusEntry, corpusDir, corpusPath, readManifest } from "./corpus.js";
export {
  createPostgresDatabase,
  createSqliteDatabase,
  createTempDir,
  createTestDatabase,
  type DatabaseKind,
  postgresAdminUrl,
  sharedRedisUrl,
  type TempResource,
} from "./databases.js";
export { type WordRecall, wordRecall, wordSet } from "./word-recall.js";
