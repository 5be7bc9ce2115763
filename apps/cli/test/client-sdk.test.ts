import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  FileTooLargeError,
  JobFailedError,
  NotFoundError,
  Octavo,
  RateLimitError,
  type UploadProgress,
} from "@octavo/client";
import { operationCatalogue } from "@octavo/client/catalogue";
import { corpusPath, createTempDir } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "./support/fault-proxy.js";
import { operationSamples } from "./support/operation-samples.js";
import { pageCount, qpdfCheck } from "./support/pdf-checks.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";

// The SDK as a customer uses it, against the real service: every kind of input, downloads, waiting,
// the typed errors, and the retries (429, 503 and a lost answer) without a second job.

const examples = join(import.meta.dirname, "..", "..", "..", "examples");
const sampleA = join(examples, "sample-a.pdf");
const sampleB = join(examples, "sample-b.pdf");
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

describe("@octavo/client against the running service", () => {
  let stack: Stack;
  let site: LocalServer;
  let client: Octavo;
  let apiKey: string;
  let scratch: { path: string; dispose(): Promise<void> };

  beforeAll(async () => {
    const pdf = await readFile(sampleB);
    site = await startLocalServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(pdf);
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    apiKey = (await stack.createAccount("business")).apiKey;
    client = new Octavo({ apiKey, baseUrl: stack.baseUrl });
    scratch = await createTempDir("octavo-sdk-");
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
    await scratch?.dispose();
  });

  it("generates the same types and catalogue from the running service's OpenAPI document", async () => {
    // The committed src/generated is what the package ships; a contract change the SDK was not
    // regenerated for makes the check exit 1 and name the stale files.
    const script = join(
      import.meta.dirname,
      "..",
      "..",
      "..",
      "packages",
      "client",
      "scripts",
      "generate.mjs",
    );
    const check = await promisify(execFile)(process.execPath, [
      script,
      "--check",
      "--from",
      `${stack.baseUrl}/v1/openapi.json`,
    ]);
    expect(check.stderr).toBe("");
  });

  it("submits every operation through its own method, at its catalogue's credits", async () => {
    // The engines run each sample once, for octavo-client and this SDK both: client-cli.test.ts submits
    // every sample through the CLI and reads each job back through this SDK (its status, operation, outputs,
    // names, content types and bytes). Here each named method submits the same sample to an API with no
    // workers, where the job waits in its queue.
    const queued = await startStack({
      database: "sqlite",
      redis: "supervised",
      workers: false,
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    try {
      const submitter = new Octavo({
        apiKey: (await queued.createAccount("business")).apiKey,
        baseUrl: queued.baseUrl,
      });
      for (const operation of operationCatalogue) {
        const sample = operationSamples[operation.id];
        // The method the catalogue names, e.g. "convert.wordToPdf", on this client.
        const [group, name] = operation.method.includes(".")
          ? operation.method.split(".")
          : [undefined, operation.method];
        const owner = (group === undefined ? submitter : submitter[group as "convert"]) as unknown as Record<
          string,
          unknown
        >;
        const method = owner[name ?? ""];
        expect(typeof method, operation.method).toBe("function");
        const submit = method as (
          files: (string | { path: string; field: string })[],
          options?: unknown,
        ) => Promise<{ id: string; credits: number }>;
        const named = Object.entries(sample.named ?? {}).flatMap(([field, paths]) =>
          paths.map((path) => ({ path, field })),
        );
        const created = await submit([...sample.files, ...named], sample.options);
        expect(created.credits, operation.id).toBe(operation.credits);
        expect((await submitter.jobs.get(created.id)).operation).toBe(operation.id);
      }
    } finally {
      await queued.close();
    }
  });

  it("runs a pipeline", async () => {
    const created = await client.pipeline(sampleA, [
      { operation: "rotate", options: { angle: 90 } },
      { operation: "protect", options: { userPassword: "s3cret" } },
    ]);
    expect(created.credits).toBe(2);
    const job = await client.jobs.wait(created.id);
    expect(job.steps?.map((step) => step.status)).toEqual(["done", "done"]);
    const file = join(scratch.path, "pipeline.pdf");
    await job.outputs?.[0]?.download(file);
    expect(
      (await promisify(execFile)("qpdf", ["--show-encryption", "--password=s3cret", file])).stdout,
    ).toContain("AESv3");
  });

  it("runs a merge from paths and downloads to a file, a directory, a stream and memory", async () => {
    const job = await client.run("merge", [sampleA, sampleB]);
    expect(job.status).toBe("done");
    expect(job.operation).toBe("merge");
    const [output] = job.outputs;
    if (!output) throw new Error("no output");
    const file = join(scratch.path, "merged.pdf");
    expect(await output.download(file)).toBe(file);
    await qpdfCheck(file);
    expect(await pageCount(file)).toBe((await pageCount(sampleA)) + (await pageCount(sampleB)));
    const intoDir = await output.download(`${scratch.path}/dir/`);
    expect(intoDir).toBe(join(scratch.path, "dir", output.name));
    expect((await stat(intoDir ?? "")).size).toBe(output.size);
    const chunks: Buffer[] = [];
    await output.download(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
    );
    expect(Buffer.concat(chunks).equals(await readFile(file))).toBe(true);
    expect(Buffer.from(await output.bytes()).equals(await readFile(file))).toBe(true);
  });

  it("takes bytes, Blobs, Files, web and Node streams, named data, renamed paths and URLs, in order", async () => {
    const bytes = await readFile(sampleA);
    const inputs = [
      bytes,
      new Uint8Array(bytes),
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      new Blob([bytes]),
      new File([bytes], "named.pdf"),
      new Blob([bytes]).stream(),
      createReadStream(sampleA),
      { data: createReadStream(sampleA), name: "from-stream.pdf" },
      { path: sampleA, name: "renamed.pdf" },
      `${site.url}/b.pdf`,
      new URL(`${site.url}/b2.pdf`),
      { url: `${site.url}/b3.pdf` },
    ];
    const job = await client.run("merge", inputs);
    const merged = join(scratch.path, "all.pdf");
    await job.outputs[0]?.download(merged);
    const pagesA = await pageCount(sampleA);
    const pagesB = await pageCount(sampleB);
    expect(await pageCount(merged)).toBe(9 * pagesA + 3 * pagesB);
    // URL inputs alone go as JSON (form B).
    const fromUrls = await client.run("merge", [`${site.url}/x.pdf`, `${site.url}/y.pdf`]);
    expect(fromUrls.outputs).toHaveLength(1);
  });

  it("reports the upload's progress up to its whole size", async () => {
    const seen: UploadProgress[] = [];
    const created = await client.compress(sampleB, undefined, {
      onUploadProgress: (progress) => seen.push(progress),
    });
    expect(created.status).toBe("queued");
    const size = (await stat(sampleB)).size;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)).toEqual({ sent: size, total: size });
    expect((await client.jobs.wait(created.id)).status).toBe("done");
  });

  it("waits with progress, lists, cancels and deletes jobs, and reads the account", async () => {
    const before = await client.account.get();
    const created = await client.rotate(sampleA, { angle: 180 });
    expect(created.credits).toBe(1);
    const progress: number[] = [];
    const job = await client.jobs.wait(created.id, {
      pollSeconds: 1,
      onProgress: (seen) => progress.push(seen.progress),
    });
    expect(job.status).toBe("done");
    expect(progress.at(-1)).toBe(1);
    expect((await client.jobs.get(created.id)).outputs?.[0]?.url).toMatch(/^http/);
    const page = await client.jobs.list({ operation: "rotate", limit: 1 });
    expect(page.data[0]?.id).toBe(created.id);
    const listed: string[] = [];
    for await (const each of client.jobs.all({ limit: 2 })) listed.push(each.id);
    expect(listed).toContain(created.id);
    expect(new Set(listed).size).toBe(listed.length);
    await client.jobs.delete(created.id);
    expect((await client.jobs.get(created.id)).outputs?.[0]).toMatchObject({ deleted: true, expired: true });
    const after = await client.account.get();
    expect(after.creditsUsed).toBeGreaterThan(before.creditsUsed);
    const queued = await client.ocr(sampleA, { force: true });
    const canceled = await client.jobs.cancel(queued.id).catch((error: unknown) => error);
    // The OCR may have finished first: then the API says so with 409 job_finished.
    if (canceled instanceof Error) expect(canceled).toMatchObject({ status: 409, error: "job_finished" });
    else expect(canceled).toMatchObject({ status: "failed", error: "canceled" });
  });

  it("throws typed errors carrying the code, message, detail, status and request id", async () => {
    const wrongKey = new Octavo({ apiKey: "svc_live_notakey", baseUrl: stack.baseUrl, maxRetries: 0 });
    const unauthorized = await wrongKey.account.get().catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, error: "invalid_api_key" });
    expect((unauthorized as AuthenticationError).requestId).toMatch(/\S/);

    const invalid = await client.rotate(sampleA, { angle: 45 as 90 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid).toMatchObject({ status: 400, error: "invalid_options" });
    expect((invalid as BadRequestError).detail).toContain("angle");
    expect((invalid as BadRequestError).requestId).toMatch(/\S/);

    const tooFew = await client.merge([sampleA]).catch((error: unknown) => error);
    expect(tooFew).toMatchObject({ status: 400, error: "invalid_input" });

    const missing = await client.jobs
      .get("00000000-0000-4000-8000-000000000000")
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);

    const failed = await client.run("compress", encrypted).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(JobFailedError);
    expect(failed).toMatchObject({ error: "password_required" });
    expect((failed as JobFailedError).job.status).toBe("failed");

    const free = new Octavo({ apiKey: (await stack.createAccount("free")).apiKey, baseUrl: stack.baseUrl });
    const big = { data: new Uint8Array(11 * 1024 * 1024), name: "big.pdf" };
    const tooLarge = await free.compress(big).catch((error: unknown) => error);
    expect(tooLarge).toBeInstanceOf(FileTooLargeError);
    expect(tooLarge).toMatchObject({ status: 413, error: "too_large" });

    const nowhere = new Octavo({ apiKey: "svc_live_x", baseUrl: "http://127.0.0.1:9", maxRetries: 1 });
    const unreachable = await nowhere.account.get().catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(ConnectionError);
  });

  it("retries a 429 after its Retry-After and then succeeds", async () => {
    // Free: 10 requests a minute. Without the gate, the eleventh request meets 429 and is retried.
    const free = new Octavo({
      apiKey: (await stack.createAccount("free")).apiKey,
      baseUrl: stack.baseUrl,
      respectRateLimit: false,
    });
    for (let i = 0; i < 10; i++) await free.account.get();
    expect(free.rateLimit).toMatchObject({ limit: 10, remaining: 0 });
    const started = Date.now();
    const account = await free.account.get();
    expect(account.plan).toBe("free");
    expect(Date.now() - started).toBeGreaterThan(900);
  });

  it("holds a request back once the budget is spent, instead of sending it into a 429", async () => {
    const apiKey = (await stack.createAccount("free")).apiKey;
    const gated = new Octavo({ apiKey, baseUrl: stack.baseUrl, maxRetries: 0 });
    await gated.account.get(); // learns the budget: 9 left
    await Promise.all(Array.from({ length: 9 }, () => gated.account.get()));
    expect(gated.rateLimit?.remaining).toBe(0);
    // The eleventh waits for the window to reset (up to a minute); abandon it after 2 s.
    const held = await gated.jobs
      .list({}, { signal: AbortSignal.timeout(2_000) })
      .catch((error: unknown) => error);
    expect(held).toMatchObject({ name: "TimeoutError" });
    // It never reached the service: the budget is spent, not overspent, and an ungated request meets 429.
    const ungated = new Octavo({ apiKey, baseUrl: stack.baseUrl, maxRetries: 0, respectRateLimit: false });
    const refused = await ungated.account.get().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfter).toBeGreaterThan(0);
  });

  describe("through a proxy that fails", () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      proxy = await startFaultProxy(stack.baseUrl);
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it("retries 503 with the same Idempotency-Key", async () => {
      const viaProxy = new Octavo({ apiKey, baseUrl: proxy.url });
      proxy.requests.length = 0;
      proxy.unavailable(2);
      const job = await viaProxy.run("rotate", sampleA);
      expect(job.status).toBe("done");
      const posts = proxy.requests.filter((request) => request.method === "POST");
      expect(posts).toHaveLength(3);
      expect(new Set(posts.map((post) => post.idempotencyKey)).size).toBe(1);
      expect(posts[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("retries a submission whose answer was lost without creating a second job", async () => {
      const viaProxy = new Octavo({ apiKey, baseUrl: proxy.url });
      const before = (await client.jobs.list({ operation: "split", limit: 100 })).data.length;
      proxy.dropAnswers(1);
      const created = await viaProxy.split(sampleA);
      const after = await client.jobs.list({ operation: "split", limit: 100 });
      expect(after.data).toHaveLength(before + 1);
      expect(after.data[0]?.id).toBe(created.id);
      expect((await client.jobs.wait(created.id)).status).toBe("done");
    });

    it("without idempotency keys, the same lost answer makes a second job", async () => {
      const noKeys = new Octavo({ apiKey, baseUrl: proxy.url, idempotencyKeys: false });
      const before = (await client.jobs.list({ operation: "repair", limit: 100 })).data.length;
      proxy.dropAnswers(1);
      await noKeys.repair(sampleA);
      expect((await client.jobs.list({ operation: "repair", limit: 100 })).data).toHaveLength(before + 2);
    });
  });
});
