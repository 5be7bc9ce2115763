export { answerCalls, ChildPool } from "./child-pool.js";
export { type CorpusEntry, corpusDir, corpusPath, readManifest, sharedDir } from "./corpus.js";
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
export { entityBombDocx, plainDocx, zipBombDocx } from "./hostile-office.js";
export {
  contentBombPdf,
  deepPageTreePdf,
  garbageImagePdf,
  garbageStreamPdf,
  hugeImagePdf,
  loopingPageTreePdf,
  manyObjectsPdf,
  manyPagesPdf,
  nestedFormsPdf,
} from "./hostile-pdfs.js";
export { childrenMatching, descendantsMatching, processesMatching } from "./processes.js";
export { promtoolProblems, sample } from "./prometheus.js";
export { type S3Request, type S3Server, s3Env, startS3Server } from "./s3-server.js";
export { rejectionOf, runTool, type ToolResult } from "./tools.js";
export { waitFor } from "./wait.js";
export { type WordRecall, wordRecall, wordSet } from "./word-recall.js";
