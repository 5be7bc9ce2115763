import { once } from "node:events";
import { createServer } from "node:http";
import S3rver from "s3rver";
import { createTempDir } from "./databases.js";

/** One request the S3 server answered, as the client sent it (path and query string). */
export interface S3Request {
  method: string;
  url: string;
  status: number;
}

export interface S3Server {
  /** `http://127.0.0.1:<port>`; use path-style addressing. */
  endpointUrl: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request answered so far, oldest first, so tests can see e.g. the parts of a multipart upload. */
  requests: readonly S3Request[];
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/**
 * A real S3 HTTP API (s3rver, files in a temp directory) on loopback with an ephemeral port, the bucket
 * created. s3rver knows one fixed key pair. What it checks and what it doesn't, as of 3.7.1:
 * - It refuses unknown access key ids and expired presigned V4 URLs, but does NOT verify V4 signatures, so
 *   a wrong secret key or a tampered URL still passes.
 * - It implements multipart upload but not AbortMultipartUpload (405 MethodNotAllowed).
 * - It ignores the SDK's flexible checksums (neither checks nor returns them).
 * The maintained fork @20minutes/s3rver (5.0.0) does verify V4 signatures, but canonicalizes presigned
 * query strings with encodeURIComponent (leaving ' and * raw), so it refuses the presigned URLs whose
 * `filename*=UTF-8''…` Content-Disposition octavo signs.
 */
export async function startS3Server({ bucket }: { bucket: string }): Promise<S3Server> {
  const dir = await createTempDir("octavo-s3-");
  const app = new S3rver({
    directory: dir.path,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  // Our own http.Server rather than app.run(): it records the requests, and close() can cut the
  // connections a test left open instead of waiting for them.
  const requests: S3Request[] = [];
  const server = createServer(app.callback());
  server.on("request", (req, res) => {
    res.on("finish", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", status: res.statusCode });
    });
  });
  try {
    await app.configureBuckets();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  } catch (error) {
    await dir.dispose();
    throw error;
  }
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the S3 server has no TCP address");
  const { port } = address;
  return {
    endpointUrl: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    requests,
    async close() {
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      await closed;
      await dir.dispose();
    },
  };
}

/**
 * The settings that point an octavo process at this server's bucket, under `prefix`, with the
 * credentials the AWS SDK reads from the environment.
 */
export function s3Env(server: S3Server, prefix = "octavo"): Record<string, string> {
  return {
    OCTAVO_STORAGE_URL: `s3://${server.bucket}/${prefix}`,
    OCTAVO_S3_ENDPOINT_URL: server.endpointUrl,
    OCTAVO_S3_REGION: "us-east-1",
    OCTAVO_S3_FORCE_PATH_STYLE: "true",
    AWS_ACCESS_KEY_ID: server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
  };
}
