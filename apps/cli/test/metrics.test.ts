import { fileURLToPath } from "node:url";
import { corpusPath, promtoolProblems, sample, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { type Cluster, logLines, type OctavoProcess, startCluster } from "./support/cluster.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { freePort } from "./support/stack.js";

const pdf = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url));
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const body = await response.text();
  expect(promtoolProblems(body)).toBe("");
  return body;
}

describe("Prometheus metrics and job logs of an API node and a worker, before and after jobs", () => {
  let cluster: Cluster;
  let receiver: LocalServer;
  let worker: OctavoProcess;
  let apiMetrics: string;
  let workerMetrics: string;

  beforeAll(async () => {
    receiver = await startLocalServer((_req, res) => res.writeHead(204).end());
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    cluster = await startCluster({
      apis: [{ OCTAVO_METRICS_PORT: String(metricsPort) }],
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
    });
    worker = await cluster.startWorker("merge,webhooks", { OCTAVO_HEALTH_PORT: String(healthPort) });
    apiMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
    workerMetrics = `http://127.0.0.1:${healthPort}/metrics`;
  });
  afterAll(async () => {
    worker?.kill("SIGKILL");
    await cluster?.close();
    await receiver?.close();
  });

  it("is served on its own port, never on the public listener", async () => {
    const publicAnswer = await fetch(`${cluster.apiUrls[0]}/metrics`);
    expect(publicAnswer.status).toBe(404);
    expect(await scrape(apiMetrics)).toMatch(/^octavo_info\{role="api",version="[\d.]+"\} 1$/m);
    expect(await scrape(workerMetrics)).toMatch(/^octavo_info\{role="worker",version="[\d.]+"\} 1$/m);
  });

  it("moves with requests, jobs, their failures and webhooks, with no id in any label", async () => {
    const { apiKey } = await cluster.createAccount("business");
    const client = new Client(cluster.apiUrls[0] ?? "", apiKey);
    const [apiBefore, workerBefore] = [await scrape(apiMetrics), await scrape(workerMetrics)];

    const webhook = { webhook_url: `http://127.0.0.1:${receiver.port}/hook` };
    const done = await client.postFiles("/v1/merge", [{ path: pdf }, { path: pdf }], undefined, webhook);
    const failed = await client.postFiles("/v1/merge", [{ path: pdf }, { path: encrypted }]);
    expect([done.status, failed.status]).toEqual([202, 202]);
    const doneId = String(done.body.id);
    const failedId = String(failed.body.id);
    expect((await client.waitForJob(doneId)).status).toBe("done");
    const failedJob = await client.waitForJob(failedId);
    expect(failedJob.status).toBe("failed");
    expect((await client.get(`/v1/jobs/${doneId}`)).status).toBe(200);
    await waitFor("the webhook to arrive", () => (receiver.requests.length > 0 ? true : undefined), 30_000);

    const worked = await waitFor(
      "the worker's delivery counter",
      async () => {
        const text = await scrape(workerMetrics);
        return sample(text, "octavo_webhook_deliveries_total", { outcome: "delivered" }) >
          sample(workerBefore, "octavo_webhook_deliveries_total", { outcome: "delivered" })
          ? text
          : undefined;
      },
      10_000,
    );
    const api = await scrape(apiMetrics);
    const moved = (after: string, before: string, name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);

    expect(moved(api, apiBefore, "octavo_jobs_accepted_total", { operation: "merge" })).toBe(2);
    const accepted = { route: "/v1/merge", method: "POST", status: "202" };
    expect(moved(api, apiBefore, "octavo_http_request_duration_seconds_count", accepted)).toBe(2);
    const read = { route: "/v1/jobs/:jobId", method: "GET", status: "200" };
    expect(moved(api, apiBefore, "octavo_http_request_duration_seconds_count", read)).toBeGreaterThanOrEqual(
      3,
    );
    for (const state of ["waiting", "active", "delayed", "failed"])
      expect(api).toMatch(
        new RegExp(`^octavo_queue_jobs\\{queue="merge",state="${state}",class="pdf"\\} \\d+$`, "m"),
      );
    expect(api).toMatch(/^octavo_queue_jobs\{queue="ocr",state="waiting",class="heavy"\} \d+$/m);

    const merge = { operation: "merge" };
    expect(moved(worked, workerBefore, "octavo_jobs_finished_total", { ...merge, status: "done" })).toBe(1);
    expect(moved(worked, workerBefore, "octavo_jobs_finished_total", { ...merge, status: "failed" })).toBe(1);
    const code = String(failedJob.error);
    expect(moved(worked, workerBefore, "octavo_jobs_failed_total", { ...merge, code })).toBe(1);
    expect(moved(worked, workerBefore, "octavo_job_run_seconds_count", merge)).toBe(2);
    expect(moved(worked, workerBefore, "octavo_job_queue_wait_seconds_count", merge)).toBe(2);
    expect(moved(worked, workerBefore, "octavo_webhook_attempts_total", { outcome: "delivered" })).toBe(1);
    expect(sample(worked, "octavo_sandbox_starts_total")).toBeGreaterThanOrEqual(2);
    expect(worked).toMatch(/^octavo_queue_jobs\{queue="webhooks",state="waiting",class="webhooks"\} \d+$/m);

    // The logs follow the job from its request to its webhook: every worker line names both ids.
    const requestId = done.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    for (const msg of ["job started", "job done", "webhook delivered"]) {
      const lines = logLines(worker, msg).filter((line) => line.jobId === doneId);
      expect(lines.map((line) => line.requestId)).toEqual([requestId]);
    }

    // Bounded labels: no job id, account id, key or URL anywhere in either exposition.
    for (const text of [api, worked]) {
      for (const secret of [doneId, failedId, apiKey, `127.0.0.1:${receiver.port}`])
        expect(text).not.toContain(secret);
    }
  });
});
