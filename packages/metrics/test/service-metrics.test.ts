import { promtoolProblems, sample } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { ServiceMetrics } from "../src/index.js";

describe("ServiceMetrics", () => {
  it("counts what it is told, with bounded labels, in an exposition promtool accepts", async () => {
    const metrics = new ServiceMetrics({ role: "test", version: "0.1.0" });
    let sandboxStarts = 3;
    metrics.watchEngines(() => ({ libreofficeRestarts: 1, chromiumRestarts: 0, sandboxStarts }));
    metrics.watchQueues({
      queues: ["merge", "ocr"],
      depth: async (queue) =>
        queue === "merge"
          ? { waiting: 4, active: 2, delayed: 1, failed: 0 }
          : Promise.reject(new Error("Redis is away")),
    });

    metrics.httpRequest("/v1/jobs/:id", "GET", 200, 0.012);
    metrics.httpRequest("/v1/merge", "POST", 202, 0.2);
    metrics.httpRequest("unmatched", "PROPFIND", 405, 0.001);
    metrics.jobAccepted("merge");
    metrics.jobAccepted("merge");
    metrics.jobFinished({ operation: "merge", status: "done", runSeconds: 0.07, queueWaitSeconds: 0.01 });
    metrics.jobFinished({ operation: "ocr", status: "failed", code: "timeout", runSeconds: 300 });
    metrics.webhookAttempt("failed", false);
    metrics.webhookAttempt("delivered", true);

    const { body, contentType } = await metrics.exposition();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(promtoolProblems(body)).toBe("");

    const labels = { route: "/v1/jobs/:id", method: "GET", status: "200" };
    expect(sample(body, "octavo_http_request_duration_seconds_count", labels)).toBe(1);
    expect(sample(body, "octavo_http_request_duration_seconds_bucket", { ...labels, le: "0.025" })).toBe(1);
    expect(sample(body, "octavo_http_request_duration_seconds_bucket", { ...labels, le: "0.01" })).toBe(0);
    // An unknown method becomes "other": nothing a client sends grows the label set.
    const odd = { route: "unmatched", method: "other", status: "405" };
    expect(sample(body, "octavo_http_request_duration_seconds_count", odd)).toBe(1);
    expect(sample(body, "octavo_jobs_accepted_total", { operation: "merge" })).toBe(2);
    expect(sample(body, "octavo_jobs_finished_total", { operation: "merge", status: "done" })).toBe(1);
    expect(sample(body, "octavo_jobs_failed_total", { operation: "ocr", code: "timeout" })).toBe(1);
    expect(sample(body, "octavo_job_run_seconds_count", { operation: "ocr" })).toBe(1);
    expect(sample(body, "octavo_job_queue_wait_seconds_count", { operation: "merge" })).toBe(1);
    expect(sample(body, "octavo_job_queue_wait_seconds_count", { operation: "ocr" })).toBe(0);
    expect(sample(body, "octavo_webhook_attempts_total", { outcome: "failed" })).toBe(1);
    expect(sample(body, "octavo_webhook_deliveries_total", { outcome: "delivered" })).toBe(1);
    expect(sample(body, "octavo_webhook_deliveries_total", { outcome: "failed" })).toBe(0);
    // Each queue's depth names the worker class that takes it, for autoscalers to select by.
    expect(sample(body, "octavo_queue_jobs", { queue: "merge", state: "waiting", class: "pdf" })).toBe(4);
    expect(sample(body, "octavo_queue_jobs", { queue: "merge", state: "active", class: "pdf" })).toBe(2);
    // A queue whose depth could not be read is left out of the scrape, which still succeeds.
    expect(body).not.toContain('queue="ocr"');
    expect(sample(body, "octavo_engine_restarts_total", { engine: "libreoffice" })).toBe(1);
    expect(sample(body, "octavo_sandbox_starts_total")).toBe(3);
    expect(sample(body, "octavo_info", { role: "test", version: "0.1.0" })).toBe(1);
    // Process metrics: memory, CPU and event-loop lag.
    for (const name of [
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
      "nodejs_eventloop_lag_p99_seconds",
    ])
      expect(body).toMatch(new RegExp(`^${name} \\d`, "m"));

    sandboxStarts = 5;
    expect(sample((await metrics.exposition()).body, "octavo_sandbox_starts_total")).toBe(5);
  });

  it("keeps each process's registry apart", async () => {
    const one = new ServiceMetrics({ role: "api", version: "0.1.0" });
    const two = new ServiceMetrics({ role: "worker", version: "0.1.0" });
    one.jobAccepted("split");
    expect(sample((await one.exposition()).body, "octavo_jobs_accepted_total", { operation: "split" })).toBe(
      1,
    );
    expect(sample((await two.exposition()).body, "octavo_jobs_accepted_total", { operation: "split" })).toBe(
      0,
    );
  });
});
