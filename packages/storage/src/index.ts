export {
  assertSafeKey,
  BlobNotFoundError,
  type BlobStore,
  type PresignGetOptions,
  StoreUnavailableError,
} from "./blob-store.js";
export { createBlobStore, type S3Settings } from "./create-blob-store.js";
export { LocalDiskStore } from "./local-disk-store.js";
export { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
