import type { Readable } from "node:stream";

/**
 * Where job inputs and outputs live. Local disk on one machine; S3-compatible storage in a fleet.
 * Keys are slash-separated paths such as `jobs/<jobId>/inputs/0`.
 */
export interface BlobStore {
  /** Streams `body` into the store. Resolves once the whole object is durable. */
  put(key: string, body: Readable | Uint8Array): Promise<{ size: number }>;
  /** Copies a local file into the store. */
  putFile(key: string, path: string): Promise<{ size: number }>;
  /** A stream of the object. Rejects with BlobNotFoundError when it does not exist. */
  get(key: string): Promise<Readable>;
  /** Copies the object to a local file (engines work on files). */
  getToFile(key: string, path: string): Promise<void>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Throws when the store cannot be read and written (readiness probe). */
  check(): Promise<void>;
  /**
   * A URL from which anyone holding it can download the object straight from the store until it
   * expires, so the bytes need not pass through octavo. Only stores that serve HTTP themselves (S3)
   * have it: check `store.presignGet` before calling.
   */
  presignGet?(key: string, options: PresignGetOptions): Promise<string>;
}

export interface PresignGetOptions {
  expiresInSeconds: number;
  /** The name the browser saves the file as; any Unicode (sent as an RFC 6266 Content-Disposition). */
  downloadName: string;
  /** The Content-Type the download is served with. */
  contentType: string;
}

export class BlobNotFoundError extends Error {
  override readonly name = "BlobNotFoundError";
  constructor(readonly key: string) {
    super(`no stored object at ${key}`);
  }
}

/**
 * The store could not be reached, or answered with a server error: nothing is wrong with the request,
 * and the same call may succeed in a few seconds. The API answers 503 with Retry-After for it.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  constructor(cause: unknown) {
    super(`the storage service is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are built by octavo, never by clients; this guards against a bug turning into path traversal. */
export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.split("/").some((part) => part === "..")) {
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
  }
}
