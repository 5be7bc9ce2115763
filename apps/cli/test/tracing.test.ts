import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTempDir, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { type Cluster, logLines, type OctavoProcess, startCluster } from "./support/cluster.js";
import { type ReceivedSpan, startOtlpReceiver, traceTree } from "./support/otlp-receiver.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";

const pdf = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url));
const artifacts = join(dirname(fileURLToPath(import.meta.url)), "..", "test-artifacts", "tracing");

/*
 * OpenTelemetry traces (issue 38) from a cluster as SREs run it, an API process and a worker process, to
 * an OTLP/HTTP receiver: one trace per job, from the HTTP request to the last webhook attempt.
 */
describe("OpenTelemetry traces across the API and worker processes", () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  /** Answers a job's first webhook 500 and its second 204. */
  let hooks: LocalServer;
  let cluster: Cluster;
  let worker: OctavoProcess;
  let client: Client;
  let scratch: { path: string; dispose(): Promise<void> };
  let apiKey: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const seen = new Set<string>();
    hooks = await startLocalServer((req, res) => {
      const first = !seen.has(req.url ?? "");
      seen.add(req.url ?? "");
      res.writeHead(first ? 500 : 204).end();
    });
    cluster = await startCluster({
      apis: [{}],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.server.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OCTAVO_URL_ALLOWLIST: `127.0.0.1:${hooks.port}`,
      },
    });
    worker = await cluster.startWorker("rotate,compress,pipeline,webhooks");
    // A paid plan: webhooks.
    ({ apiKey } = await cluster.createAccount("business"));
    client = new Client(cluster.apiUrls[0] ?? "", apiKey);
    scratch = await createTempDir("octavo-tracing-");
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await receiver?.server.close();
    await hooks?.close();
    await scratch?.dispose();
  });

  const spansOf = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);
  const only = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(
      found.map((span) => span.name),
      `one ${name}`,
    ).toEqual([name]);
    return found[0] as ReceivedSpan;
  };
  /** Waits until the trace holds spans of these names (the processes export in batches). */
  const traceWith = (traceId: string, names: string[]) =>
    waitFor(
      `spans ${names.join(", ")} of trace ${traceId}`,
      () => {
        const spans = spansOf(traceId);
        return names.every((name) => spans.some((span) => span.name === name)) ? spans : undefined;
      },
      30_000,
    );
  const traceOfJob = (job: JobBody) =>
    waitFor(
      `the trace of job ${job.id}`,
      () =>
        receiver.spans.find((span) => span.name === "job.run" && span.attributes["octavo.job.id"] === job.id)
          ?.traceId,
    );

  it("makes one trace of a job, from the caller's traceparent through the API and the worker", async () => {
    // A customer's trace: the request carries its context, and octavo's spans continue it.
    const traceId = randomBytes(16).toString("hex");
    const callerSpan = randomBytes(8).toString("hex");
    const created = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf, name: "secret-name.pdf" }],
      { angle: 90 },
      {},
      {
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
    );
    expect(created.status).toBe(202);
    const job = await client.waitForJob(String(created.body.id));
    expect(job.status).toBe("done");

    // Each process exports a span when it ends (job.run after its children), in batches of its own.
    const spans = await traceWith(traceId, [
      "POST /v1/rotate",
      "job.accept",
      "job.queued",
      "job.run",
      "job.inputs",
      "sandbox rotate",
      "qpdf",
      "job.outputs",
      "job.settle",
    ]);
    const http = only(spans, "POST /v1/rotate");
    expect(http).toMatchObject({
      service: "octavo-api",
      parentSpanId: callerSpan,
      kind: 2, // server
      attributes: {
        "http.request.method": "POST",
        "http.route": "/v1/rotate",
        "http.response.status_code": 202,
      },
    });
    const accept = only(spans, "job.accept");
    expect(accept).toMatchObject({ service: "octavo-api", parentSpanId: http.spanId });
    expect(accept.attributes).toMatchObject({
      "octavo.job.id": job.id,
      "octavo.operation": "rotate",
      "db.system.name": "postgresql",
      "messaging.destination.name": "rotate",
    });
    const run = only(spans, "job.run");
    expect(run).toMatchObject({ service: "octavo-worker", parentSpanId: accept.spanId, kind: 5 }); // consumer
    expect(run.attributes["octavo.account.id"]).toBe(accept.attributes["octavo.account.id"]);
    const queued = only(spans, "job.queued");
    expect(queued.parentSpanId).toBe(accept.spanId);
    expect(queued.end).toBeLessThanOrEqual(run.start + 1);
    for (const name of ["job.inputs", "sandbox rotate", "job.outputs", "job.settle"]) {
      expect(only(spans, name).parentSpanId, name).toBe(run.spanId);
    }
    // The engine: what the sandbox ran, each program a span of its own.
    const engine = only(spans, "sandbox rotate");
    expect(engine.attributes["octavo.engine"]).toMatch(/qpdf/);
    expect(only(spans, "qpdf")).toMatchObject({ parentSpanId: engine.spanId, service: "octavo-worker" });
    // Nothing a client sent is exported: no file name, no key.
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain("secret-name");
    expect(exported).not.toContain(apiKey);
    // The worker's log lines about the job name its trace.
    const started = logLines(worker, "job started").find((line) => line.jobId === job.id);
    expect(started).toMatchObject({ trace_id: traceId, span_id: run.spanId });
  });

  it("gives each pipeline step its span, and shows the whole job as a tree", async () => {
    const created = await client.postFiles("/v1/pipeline", [{ path: pdf }], undefined, {
      steps: JSON.stringify([
        { operation: "rotate", options: { angle: 90 } },
        { operation: "compress", options: { level: "recommended" } },
      ]),
    });
    const job = await client.waitForJob(String(created.body.id));
    expect(job.status).toBe("done");
    const traceId = await traceOfJob(job);
    const spans = await traceWith(traceId, [
      "POST /v1/pipeline",
      "job.accept",
      "job.queued",
      "job.run",
      "pipeline.step compress",
      "job.settle",
    ]);
    const run = only(spans, "job.run");
    const steps = spans.filter((span) => span.name.startsWith("pipeline.step"));
    expect(steps.map((step) => [step.name, step.parentSpanId, step.attributes["octavo.step.index"]])).toEqual(
      [
        ["pipeline.step rotate", run.spanId, 0],
        ["pipeline.step compress", run.spanId, 1],
      ],
    );
    expect(only(spans, "sandbox compress").parentSpanId).toBe(steps[1]?.spanId);
    const tree = traceTree(receiver.spans, traceId);
    await mkdir(artifacts, { recursive: true });
    await writeFile(join(artifacts, "pipeline-trace.txt"), `${tree}\n`);
    expect(tree.split("\n")[0]).toMatch(/^POST \/v1\/pipeline {2}[\d.]+ ms {2}\[octavo-api\]$/);
  });

  it("marks a failed job's spans as errors, with the code the client got", async () => {
    const notPdf = join(scratch.path, "notes.pdf");
    await writeFile(notPdf, "these are plain notes, not a PDF\n");
    const created = await client.postFiles("/v1/rotate", [{ path: notPdf }], { angle: 90 });
    const job = await client.waitForJob(String(created.body.id));
    expect(job).toMatchObject({ status: "failed", error: "invalid_input" });
    const spans = await traceWith(await traceOfJob(job), ["job.settle"]);
    expect(only(spans, "job.run")).toMatchObject({ status: 2 });
    expect(only(spans, "sandbox rotate")).toMatchObject({
      status: 2,
      attributes: { "octavo.job.error_code": "invalid_input" },
    });
    expect(only(spans, "job.settle").attributes).toMatchObject({
      "octavo.job.status": "failed",
      "octavo.job.error_code": "invalid_input",
    });
  });

  it("adds each webhook attempt to the job's trace, with its status code", async () => {
    const created = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      { angle: 180 },
      {
        webhook_url: `${hooks.url}/job-hook`,
      },
    );
    const job = await client.waitForJob(String(created.body.id));
    const traceId = await traceOfJob(job);
    // The first attempt is answered 500; the retry, 5 s later, 204.
    const spans = await waitFor(
      "two webhook attempts",
      () => {
        const attempts = spansOf(traceId).filter((span) => span.name === "webhook.attempt");
        return attempts.length === 2 ? spansOf(traceId) : undefined;
      },
      40_000,
    );
    const settle = only(spans, "job.settle");
    const attempts = spans
      .filter((span) => span.name === "webhook.attempt")
      .sort((a, b) => a.start - b.start);
    expect(
      attempts.map((attempt) => [
        attempt.parentSpanId,
        attempt.attributes["octavo.webhook.attempt"],
        attempt.attributes["http.response.status_code"],
        attempt.status,
      ]),
    ).toEqual([
      [settle.spanId, 1, 500, 2],
      [settle.spanId, 2, 204, 0],
    ]);
  }, 60_000);
});
