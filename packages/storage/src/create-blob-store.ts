import { fileURLToPath } from "node:url";
import type { BlobStore } from "./blob-store.js";
import { LocalDiskStore } from "./local-disk-store.js";

/** Picks the store from OCTAVO_STORAGE_URL. */
export function createBlobStore(storageUrl: string): BlobStore {
  const url = new URL(storageUrl);
  if (url.protocol === "file:") return new LocalDiskStore(fileURLToPath(url));
  throw new Error(`unsupported storage URL scheme ${url.protocol} (supported: file://)`);
}
