import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { create as attachmentDisposition } from "content-disposition";
import {
  assertSafeKey,
  BlobNotFoundError,
  type BlobStore,
  type PresignGetOptions,
  StoreUnavailableError,
} from "./blob-store.js";

export interface S3BlobStoreOptions {
  bucket: string;
  /** Put before every key with a slash between; "" for none. Leading and trailing slashes are ignored. */
  prefix: string;
  /** An S3-compatible service (MinIO, Ceph, R2…); AWS's own endpoints when absent. */
  endpointUrl?: string;
  /** The SDK's own resolution (AWS_REGION, the profile) when absent, else us-east-1. */
  region?: string;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`, which most self-hosted services need. */
  forcePathStyle: boolean;
}

// 8 MiB parts, two in flight: an upload holds about three parts in memory whatever the object's size,
// and 10,000 parts still allow 80 GiB objects.
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * Objects in an S3 bucket under a key prefix. Credentials come from the AWS SDK's default provider
 * chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, AWS_PROFILE, web identity, instance
 * roles…), never from octavo's configuration, so they appear in no URL, log line or error message.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.client = new S3Client({
      region: options.region ?? sdkRegionOrUsEast1(),
      ...(options.endpointUrl === undefined ? {} : { endpoint: options.endpointUrl }),
      forcePathStyle: options.forcePathStyle,
      // With the us-east-1 fallback the bucket may live elsewhere; AWS then says where, and the SDK retries there.
      followRegionRedirects: true,
    });
  }

  private objectKey(key: string): string {
    assertSafeKey(key);
    return this.prefix === "" ? key : `${this.prefix}/${key}`;
  }

  async put(key: string, body: Readable | Uint8Array): Promise<{ size: number }> {
    const objectKey = this.objectKey(key);
    if (body instanceof Uint8Array) {
      await this.upload(objectKey, body).catch((error: unknown) => {
        throw unavailableOr(error);
      });
      return { size: body.byteLength };
    }
    const counter = new ByteCounter();
    try {
      await this.upload(objectKey, Readable.from(counter.through(body)));
    } catch (error) {
      // When the source failed, that is the story, even if aborting the multipart upload failed too (the
      // bucket's AbortIncompleteMultipartUpload lifecycle rule then removes the parts).
      throw counter.sourceError ?? unavailableOr(error);
    }
    return { size: counter.bytes };
  }

  /**
   * One PutObject for a body that fits in a part, else a multipart upload. On any failure Upload aborts
   * the multipart upload (leavePartsOnError: false), so no parts are left to pay for.
   */
  private async upload(objectKey: string, body: Readable | Uint8Array): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async putFile(key: string, path: string): Promise<{ size: number }> {
    assertSafeKey(key); // before opening the file, so a refused key leaks no file descriptor
    return this.put(key, createReadStream(path));
  }

  async get(key: string): Promise<Readable> {
    const objectKey = this.objectKey(key);
    try {
      const { Body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      if (!(Body instanceof Readable)) throw new Error(`S3 returned no body stream for ${key}`);
      return Body;
    } catch (error) {
      if (isMissingObject(error)) throw new BlobNotFoundError(key);
      throw unavailableOr(error);
    }
  }

  async getToFile(key: string, path: string): Promise<void> {
    const body = await this.get(key); // a missing object rejects here, before the file exists
    try {
      await pipeline(body, createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const objectKey = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw unavailableOr(error);
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a missing key too.
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }))
      .catch((error: unknown) => {
        throw unavailableOr(error);
      });
  }

  async check(): Promise<void> {
    const key = `health/${randomUUID()}`;
    try {
      await this.put(key, Buffer.from("ok"));
      await this.delete(key);
    } catch (error) {
      throw new Error(describeCheckFailure(this.bucket, error), { cause: error });
    }
  }

  /**
   * Signed with the credentials in effect: temporary credentials (a role, web identity) stop the URL
   * working when they expire, even before `expiresInSeconds`.
   */
  async presignGet(key: string, options: PresignGetOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: attachmentDisposition(options.downloadName),
      ResponseContentType: options.contentType,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds });
  }
}

/** Passes a stream's chunks on while counting them: the size is what was sent, not what a header claimed. */
class ByteCounter {
  bytes = 0;
  sourceError: unknown;

  async *through(source: Readable): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of source) {
        const buffer: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        this.bytes += buffer.byteLength;
        yield buffer;
      }
    } catch (error) {
      this.sourceError = error;
      throw error;
    }
  }
}

// What Node's sockets and DNS report when the store's host cannot be reached (or has gone away).
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * The store was unreachable or failed on its side (5xx): a StoreUnavailableError wrapping it. Any other
 * error (a refused credential, a missing bucket, a bug) passes as it is.
 */
function unavailableOr(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  const unreachable =
    (typeof status === "number" && status >= 500) ||
    (typeof code === "string" && NETWORK_CODES.has(code)) ||
    name === "TimeoutError";
  return unreachable ? new StoreUnavailableError(error) : error;
}

function normalizePrefix(raw: string): string {
  const prefix = raw.replace(/^\/+|\/+$/g, "");
  // Same rules as keys, so prefix + "/" + key is always a clean key (no "//", no "..").
  if (prefix !== "") assertSafeKey(prefix);
  return prefix;
}

/** The SDK's region resolution (AWS_REGION, the profile's config file…); us-east-1 where it finds none. */
function sdkRegionOrUsEast1(): () => Promise<string> {
  // A throwaway client is the public way to get the SDK's region provider; it opens no connection.
  const probe = new S3Client({});
  const sdkRegion = probe.config.region;
  probe.destroy();
  return async () => {
    try {
      return await sdkRegion();
    } catch {
      return "us-east-1";
    }
  };
}

function isMissingObject(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  if (error.name === "NoSuchKey" || error.name === "NotFound") return true;
  // A missing bucket is a misconfiguration, not a missing object.
  return error.$metadata.httpStatusCode === 404 && error.name !== "NoSuchBucket";
}

const REFUSED_CREDENTIALS = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
  "CredentialsProviderError",
]);

/** Names the bucket and the S3 error code; SDK error messages carry no secret, so they may be shown. */
function describeCheckFailure(bucket: string, error: unknown): string {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  if (name === "NoSuchBucket") return `S3 bucket "${bucket}" does not exist (${name})`;
  if (REFUSED_CREDENTIALS.has(name)) {
    return `S3 bucket "${bucket}" refused the credentials or denied access (${name}: ${message})`;
  }
  return `S3 bucket "${bucket}" cannot be written and read (${name}: ${message})`;
}
