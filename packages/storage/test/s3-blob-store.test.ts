import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { createTempDir, type S3Server, startS3Server, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BlobNotFoundError, createBlobStore, S3BlobStore, StoreUnavailableError } from "../src/index.js";

const BUCKET = "octavo-test";
const MiB = 1024 * 1024;

let server: S3Server;
let store: S3BlobStore;
let raw: S3Client;
let tmp: { path: string; dispose(): Promise<void> };

/** The store finds its credentials where it would in production: the SDK's default provider chain. */
function useServerCredentials(): void {
  vi.stubEnv("AWS_ACCESS_KEY_ID", server.accessKeyId);
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", server.secretAccessKey);
  vi.stubEnv("AWS_SESSION_TOKEN", undefined);
  vi.stubEnv("AWS_PROFILE", undefined);
  // Keep a developer's ~/.aws and AWS_REGION out of the test: the region falls back to us-east-1.
  vi.stubEnv("AWS_REGION", undefined);
  vi.stubEnv("AWS_DEFAULT_REGION", undefined);
  vi.stubEnv("AWS_CONFIG_FILE", join(tmp.path, "no-aws-config"));
  vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(tmp.path, "no-aws-credentials"));
}

function storeFor(bucket: string, prefix = "tests"): S3BlobStore {
  return new S3BlobStore({ bucket, prefix, endpointUrl: server.endpointUrl, forcePathStyle: true });
}

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

beforeAll(async () => {
  tmp = await createTempDir("octavo-s3-test-");
  server = await startS3Server({ bucket: BUCKET });
  useServerCredentials();
  store = storeFor(BUCKET);
  raw = new S3Client({
    endpoint: server.endpointUrl,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
});

afterAll(async () => {
  vi.unstubAllEnvs();
  raw?.destroy();
  await server?.close();
  await tmp?.dispose();
});

describe("S3BlobStore against a local S3 server", () => {
  it("round-trips a Uint8Array and a stream, and stats them", async () => {
    const bytes = new Uint8Array(randomBytes(1000));
    expect(await store.put("jobs/a/inputs/0", bytes)).toEqual({ size: 1000 });
    expect(await buffer(await store.get("jobs/a/inputs/0"))).toEqual(Buffer.from(bytes));
    expect(await store.stat("jobs/a/inputs/0")).toEqual({ size: 1000 });

    const stream = Readable.from([Buffer.from("hello "), Buffer.from("wörld")]);
    expect(await store.put("jobs/a/inputs/1", stream)).toEqual({ size: 12 });
    expect((await buffer(await store.get("jobs/a/inputs/1"))).toString("utf8")).toBe("hello wörld");
    expect(await store.stat("jobs/a/inputs/1")).toEqual({ size: 12 });

    expect(await store.put("jobs/a/inputs/2", Readable.from([]))).toEqual({ size: 0 });
    expect(await store.stat("jobs/a/inputs/2")).toEqual({ size: 0 });
  });

  it("streams a 20 MiB body as a multipart upload of 8 MiB parts and reads it back byte-identical", async () => {
    const chunks = Array.from({ length: 20 }, () => randomBytes(MiB));
    chunks.push(randomBytes(123)); // not a whole number of parts
    const expected = createHash("sha256");
    for (const chunk of chunks) expected.update(chunk);

    const key = "jobs/big/inputs/0";
    expect(await store.put(key, Readable.from(chunks))).toEqual({ size: 20 * MiB + 123 });

    const parts = server.requests.filter(
      (r) =>
        r.method === "PUT" && r.url.startsWith(`/${BUCKET}/tests/${key}?`) && r.url.includes("partNumber="),
    );
    expect(parts.map((r) => new URLSearchParams(r.url.split("?")[1]).get("partNumber")).sort()).toEqual([
      "1",
      "2",
      "3",
    ]);
    expect(parts.every((r) => r.status === 200)).toBe(true);

    const back = createHash("sha256");
    for await (const chunk of await store.get(key)) back.update(Buffer.from(chunk));
    expect(back.digest("hex")).toBe(expected.digest("hex"));
    expect(await store.stat(key)).toEqual({ size: 20 * MiB + 123 });
  });

  it("aborts the multipart upload and reports the source's error when the body fails midway", async () => {
    const key = "jobs/broken/inputs/0";
    async function* failing() {
      for (let i = 0; i < 9; i++) yield randomBytes(MiB); // more than one part, so a part was uploaded
      throw new Error("client went away");
    }
    await expect(store.put(key, Readable.from(failing()))).rejects.toThrow("client went away");

    // Upload sent AbortMultipartUpload (DELETE ?uploadId=…). s3rver does not implement it and answers 405,
    // so the parts' removal itself is not observable here; the object was certainly not completed.
    const aborts = server.requests.filter(
      (r) =>
        r.method === "DELETE" && r.url.startsWith(`/${BUCKET}/tests/${key}?`) && r.url.includes("uploadId="),
    );
    expect(aborts).toHaveLength(1);
    expect(await store.stat(key)).toBeUndefined();
  });

  it("copies files in and out, and leaves no file behind for a missing object", async () => {
    const source = join(tmp.path, "source.bin");
    const bytes = randomBytes(3 * MiB + 7);
    writeFileSync(source, bytes);
    expect(await store.putFile("jobs/f/outputs/0", source)).toEqual({ size: bytes.length });

    const copy = join(tmp.path, "copy.bin");
    await store.getToFile("jobs/f/outputs/0", copy);
    expect(sha256(readFileSync(copy))).toBe(sha256(bytes));

    const missing = join(tmp.path, "missing.bin");
    await expect(store.getToFile("jobs/f/outputs/404", missing)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(existsSync(missing)).toBe(false);
  });

  it("reports missing objects: stat undefined, get BlobNotFoundError, delete fine", async () => {
    expect(await store.stat("jobs/none/inputs/0")).toBeUndefined();
    await expect(store.get("jobs/none/inputs/0")).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.delete("jobs/none/inputs/0");

    await store.put("jobs/d/inputs/0", Buffer.from("x"));
    await store.delete("jobs/d/inputs/0");
    await store.delete("jobs/d/inputs/0");
    expect(await store.stat("jobs/d/inputs/0")).toBeUndefined();
  });

  // Found by the chaos run (npm run test:chaos, seed 1): with S3 stopped, uploads answered 500
  // internal_error. An unreachable or failing store is now StoreUnavailableError, which the API answers
  // 503 with Retry-After; a refusal that retrying cannot mend (a missing bucket) stays what it is.
  it("reports a store that is unreachable or failing (5xx) as StoreUnavailableError, and nothing else", async () => {
    const failing = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
    const { port } = failing.address() as AddressInfo;
    const at = (endpointUrl: string) =>
      new S3BlobStore({ bucket: BUCKET, prefix: "", endpointUrl, forcePathStyle: true });
    try {
      failing.close(); // stops listening: the first endpoint refuses connections
      const closed = at(`http://127.0.0.1:${port}`);
      for (const call of [
        () => closed.put("jobs/a/inputs/0", Buffer.from("x")),
        () => closed.put("jobs/a/inputs/0", Readable.from([Buffer.from("x")])),
        () => closed.get("jobs/a/inputs/0"),
        () => closed.stat("jobs/a/inputs/0"),
        () => closed.delete("jobs/a/inputs/0"),
      ])
        await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      failing.close();
    }
    const erroring = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => erroring.listen(0, "127.0.0.1", resolve));
    try {
      const down = at(`http://127.0.0.1:${(erroring.address() as AddressInfo).port}`);
      await expect(down.put("jobs/a/inputs/0", Buffer.from("x"))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(down.get("jobs/a/inputs/0")).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      erroring.close();
    }
    const missingBucket = storeFor("no-such-bucket").put("jobs/a/inputs/0", Buffer.from("x"));
    await expect(missingBucket).rejects.not.toBeInstanceOf(StoreUnavailableError);
  });

  it("refuses unsafe keys before sending anything", async () => {
    const before = server.requests.length;
    await expect(store.put("../escape", Buffer.from("x"))).rejects.toThrow(/unsafe storage key/);
    await expect(store.get("jobs//a")).rejects.toThrow(/unsafe storage key/);
    await expect(store.stat("/abs")).rejects.toThrow(/unsafe storage key/);
    await expect(store.putFile("a/../../b", join(tmp.path, "source.bin"))).rejects.toThrow(
      /unsafe storage key/,
    );
    await expect(
      store.presignGet("jobs/a/..", { expiresInSeconds: 60, downloadName: "a", contentType: "text/plain" }),
    ).rejects.toThrow(/unsafe storage key/);
    expect(server.requests.length).toBe(before);
  });

  it("check() passes, and names the bucket when it is missing or the credentials are refused", async () => {
    await store.check();

    await expect(storeFor("no-such-bucket").check()).rejects.toThrow(
      /S3 bucket "no-such-bucket" does not exist/,
    );

    // s3rver refuses unknown access key ids (it does not verify V4 signatures, so a wrong secret would pass).
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIAUNKNOWNKEY000000");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "never-in-a-message");
    try {
      const message = await storeFor(BUCKET)
        .check()
        .then(
          () => "check() passed",
          (e: unknown) => (e instanceof Error ? e.message : String(e)),
        );
      expect(message).toMatch(
        `S3 bucket "${BUCKET}" refused the credentials or denied access (InvalidAccessKeyId`,
      );
      expect(message).not.toContain("never-in-a-message");
      expect(message).not.toContain("AKIAUNKNOWNKEY000000");
    } finally {
      useServerCredentials();
    }
  });

  it("presigns a GET that plain fetch downloads with the UTF-8 file name", async () => {
    const bytes = randomBytes(5000);
    await store.put("jobs/p/outputs/0", bytes);
    const downloadName = 'Résumé – "final" 2024.pdf';
    const url = await store.presignGet("jobs/p/outputs/0", {
      expiresInSeconds: 60,
      downloadName,
      contentType: "application/pdf",
    });

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const disposition = response.headers.get("content-disposition");
    expect(disposition).toMatch(/^attachment; filename="[^"]*\\"final\\" 2024\.pdf"; /);
    const star = /filename\*=UTF-8''(.+)$/.exec(disposition ?? "")?.[1] ?? "";
    expect(decodeURIComponent(star)).toBe(downloadName);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it("a presigned URL is refused once it has expired", async () => {
    await store.put("jobs/p/outputs/1", Buffer.from("short-lived"));
    const url = await store.presignGet("jobs/p/outputs/1", {
      expiresInSeconds: 1,
      downloadName: "a.txt",
      contentType: "text/plain",
    });
    // X-Amz-Date has whole seconds, so a 1 s URL is dead at most 2 s after signing.
    const response = await waitFor(
      "the presigned URL to expire",
      async () => {
        const answer = await fetch(url);
        if (answer.status === 200) await answer.arrayBuffer();
        return answer.status === 200 ? undefined : answer;
      },
      5_000,
      200,
    );
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Request has expired");
  });

  it("createBlobStore parses s3://bucket/prefix and puts objects under the prefix", async () => {
    const settings = { endpointUrl: server.endpointUrl, forcePathStyle: true }; // no region: us-east-1
    const prefixed = createBlobStore(`s3://${BUCKET}/tenant-a/files/`, settings);
    expect(prefixed).toBeInstanceOf(S3BlobStore);
    await prefixed.put("jobs/c/outputs/0", Buffer.from("under the prefix"));

    const head = await raw.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: "tenant-a/files/jobs/c/outputs/0" }),
    );
    expect(head.ContentLength).toBe(16);
    const listed = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "tenant-a/" }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(["tenant-a/files/jobs/c/outputs/0"]);

    const bare = createBlobStore(`s3://${BUCKET}`, settings);
    await bare.put("jobs/c/outputs/1", Buffer.from("at the root"));
    const rootHead = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: "jobs/c/outputs/1" }));
    expect(rootHead.ContentLength).toBe(11);
  });
});

describe("createBlobStore", () => {
  it("rejects other schemes, credentials in the URL, and a missing bucket", () => {
    expect(() => createBlobStore("ftp://host/dir")).toThrow(/supported: file:\/\/, s3:\/\//);
    expect(() => createBlobStore("s3://AKIA:topsecret@bucket/p")).toThrow(/takes no credentials/);
    expect(() => createBlobStore("s3://AKIA:topsecret@bucket/p")).not.toThrow(/topsecret/);
    expect(() => createBlobStore("s3:///prefix")).toThrow(/needs a bucket/);
    expect(() => createBlobStore("s3://bucket/a//b")).toThrow(/unsafe storage key/);
  });
});
