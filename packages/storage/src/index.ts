export { assertSafeKey, BlobNotFoundError, type BlobStore } from "./blob-store.js";
export { createBlobStore } from "./create-blob-store.js";
export { LocalDiskStore } from "./local-disk-store.js";
