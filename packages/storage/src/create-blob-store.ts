import { fileURLToPath } from "node:url";
import type { BlobStore } from "./blob-store.js";
import { LocalDiskStore } from "./local-disk-store.js";
import { S3BlobStore } from "./s3-blob-store.js";

/** How an `s3://` store is reached. Credentials are not here: they come from the AWS SDK's provider chain. */
export interface S3Settings {
  /** An S3-compatible service (MinIO, Ceph, R2…); AWS when absent. */
  endpointUrl?: string;
  /** The SDK's own resolution (AWS_REGION, the profile) when absent, else us-east-1. */
  region?: string;
  forcePathStyle: boolean;
}

/** Picks the store from OCTAVO_STORAGE_URL: `file://<dir>` or `s3://<bucket>[/<prefix>]`. */
export function createBlobStore(storageUrl: string, s3: S3Settings = { forcePathStyle: false }): BlobStore {
  const url = new URL(storageUrl);
  if (url.protocol === "file:") return new LocalDiskStore(fileURLToPath(url));
  if (url.protocol === "s3:") return new S3BlobStore({ ...s3, ...parseS3Url(url) });
  throw new Error(`unsupported storage URL scheme ${url.protocol} (supported: file://, s3://)`);
}

function parseS3Url(url: URL): { bucket: string; prefix: string } {
  // Never echo the URL here: it is the one place a secret could have been pasted.
  if (url.username !== "" || url.password !== "") {
    throw new Error("an s3:// storage URL takes no credentials; the AWS SDK reads them (AWS_ACCESS_KEY_ID…)");
  }
  if (url.hostname === "")
    throw new Error("an s3:// storage URL needs a bucket, e.g. s3://octavo-files/prod");
  return { bucket: url.hostname, prefix: decodeURIComponent(url.pathname) };
}
