import { type JobErrorCode, type JobKind, workerClassOf } from "@octavo/contracts";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** A queue's jobs by state, as BullMQ counts them (waiting includes its prioritized set). */
export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** The queues a process reports and how to count one; read at every scrape. */
export interface QueueDepthSource {
  queues: readonly string[];
  depth(queue: string): Promise<QueueDepth>;
}

/** Engine processes started so far by a process's supervisors; monotonic, read at every scrape. */
export interface EngineStarts {
  /** LibreOffice instances started again after their first start (recycled, crashed or timed out). */
  libreofficeRestarts: number;
  /** Chromium browsers started again after the first (recycled or crashed). */
  chromiumRestarts: number;
  /** Sandbox processes started for the PDF engines. */
  sandboxStarts: number;
}

export type WebhookOutcome = "delivered" | "failed";

/** A finished job as the metrics see it: its times in seconds, when it ran at all. */
export interface FinishedJob {
  operation: JobKind;
  status: "done" | "failed";
  code?: JobErrorCode | undefined;
  runSeconds?: number | undefined;
  queueWaitSeconds?: number | undefined;
}

/** Seconds: fast API answers up to the 60 s long polls of GET /v1/jobs/{id}?wait=. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: light jobs take tens of milliseconds, heavy ones minutes (the job timeout is 300 s by default). */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const LINT_FAILING_DEFAULTS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];
const QUEUE_STATES = ["waiting", "active", "delayed", "failed"] as const;

/** Adds a source to a list; the returned function takes it out again. */
function watch<T>(sources: T[], source: T): () => void {
  sources.push(source);
  return () => {
    const index = sources.indexOf(source);
    if (index >= 0) sources.splice(index, 1);
  };
}

/**
 * The Prometheus metrics of one octavo process, in a registry of its own. Every label is bounded: route
 * templates, methods, statuses, operation ids, error codes, queue names; never a job, account or URL.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly queueSources: QueueDepthSource[] = [];
  private readonly engineSources: (() => EngineStarts)[] = [];
  private readonly httpDuration: Histogram<"route" | "method" | "status">;
  private readonly jobsAccepted: Counter<"operation">;
  private readonly jobsFinished: Counter<"operation" | "status">;
  private readonly jobsFailed: Counter<"operation" | "code">;
  private readonly jobRun: Histogram<"operation">;
  private readonly jobWait: Histogram<"operation">;
  private readonly webhookAttempts: Counter<"outcome">;
  private readonly webhookDeliveries: Counter<"outcome">;

  constructor(options: { role: string; version: string }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which promtool's lint refuses; the same counts remain by type in
    // nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
    for (const name of LINT_FAILING_DEFAULTS) this.registry.removeSingleMetric(name);
    new Gauge({
      name: "octavo_info",
      help: "Always 1: the role and version of this process",
      labelNames: ["role", "version"],
      registers,
    }).set({ role: options.role, version: options.version }, 1);
    this.httpDuration = new Histogram({
      name: "octavo_http_request_duration_seconds",
      help: "API requests by route template, method and status: time to the last byte of the answer",
      labelNames: ["route", "method", "status"],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.jobsAccepted = new Counter({
      name: "octavo_jobs_accepted_total",
      help: "Jobs accepted (202) by operation",
      labelNames: ["operation"],
      registers,
    });
    this.jobsFinished = new Counter({
      name: "octavo_jobs_finished_total",
      help: "Jobs that ended, by operation and status (done or failed)",
      labelNames: ["operation", "status"],
      registers,
    });
    this.jobsFailed = new Counter({
      name: "octavo_jobs_failed_total",
      help: "Jobs that ended failed, by operation and error code",
      labelNames: ["operation", "code"],
      registers,
    });
    this.jobRun = new Histogram({
      name: "octavo_job_run_seconds",
      help: "Time from a job's start on a worker to its end, by operation",
      labelNames: ["operation"],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.jobWait = new Histogram({
      name: "octavo_job_queue_wait_seconds",
      help: "Time from a job's acceptance to its start on a worker, by operation",
      labelNames: ["operation"],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.webhookAttempts = new Counter({
      name: "octavo_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome (a failed attempt is retried until the last)",
      labelNames: ["outcome"],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: "octavo_webhook_deliveries_total",
      help: "Webhook deliveries that ended, by outcome (failed: every attempt failed)",
      labelNames: ["outcome"],
      registers,
    });
    this.registerQueueDepth(registers);
    this.registerEngineStarts(registers);
  }

  /** One answered API request; `route` is the matched route's template, never the raw path. */
  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const verb = METHODS.has(method) ? method : "other";
    this.httpDuration.observe({ route, method: verb, status: String(status) }, seconds);
  }

  jobAccepted(operation: JobKind): void {
    this.jobsAccepted.inc({ operation });
  }

  jobFinished(job: FinishedJob): void {
    const { operation } = job;
    this.jobsFinished.inc({ operation, status: job.status });
    if (job.status === "failed") this.jobsFailed.inc({ operation, code: job.code ?? "unknown" });
    if (job.runSeconds !== undefined) this.jobRun.observe({ operation }, job.runSeconds);
    if (job.queueWaitSeconds !== undefined) this.jobWait.observe({ operation }, job.queueWaitSeconds);
  }

  /** One delivery attempt; `final` when no attempt follows it (delivered, or the last one failed). */
  webhookAttempt(outcome: WebhookOutcome, final: boolean): void {
    this.webhookAttempts.inc({ outcome });
    if (final) this.webhookDeliveries.inc({ outcome });
  }

  /** Reports these queues' depth at every scrape until the returned function is called. */
  watchQueues(source: QueueDepthSource): () => void {
    return watch(this.queueSources, source);
  }

  /** Reports a supervisor's engine (re)starts at every scrape until the returned function is called. */
  watchEngines(source: () => EngineStarts): () => void {
    return watch(this.engineSources, source);
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private registerQueueDepth(registers: Registry[]): void {
    const sources = this.queueSources;
    new Gauge({
      name: "octavo_queue_jobs",
      help: "Jobs in each queue by state, read from BullMQ at scrape time, with the worker class that takes the queue; every node reports every queue it knows, so aggregate with max",
      labelNames: ["queue", "state", "class"],
      registers,
      async collect() {
        this.reset();
        const queues = [...new Set(sources.flatMap((source) => source.queues))];
        const depths = await Promise.all(
          queues.map(async (queue) => {
            const source = sources.find((candidate) => candidate.queues.includes(queue));
            // Redis away for a moment: the queue is left out of this scrape instead of failing it.
            return source?.depth(queue).catch(() => undefined);
          }),
        );
        for (const [index, depth] of depths.entries()) {
          const queue = queues[index];
          if (!depth || queue === undefined) continue;
          // The class lets an autoscaler select its worker class's queues without listing them.
          const workerClass = workerClassOf(queue);
          for (const state of QUEUE_STATES) {
            this.set(workerClass ? { queue, state, class: workerClass } : { queue, state }, depth[state]);
          }
        }
      },
    });
  }

  private registerEngineStarts(registers: Registry[]): void {
    const sources = this.engineSources;
    const total = (pick: (starts: EngineStarts) => number) =>
      sources.reduce((sum, source) => sum + pick(source()), 0);
    new Counter({
      name: "octavo_engine_restarts_total",
      help: "Warm engines started again after their first start (recycled after their job limit, crashed or timed out)",
      labelNames: ["engine"],
      registers,
      collect() {
        this.reset();
        this.inc(
          { engine: "libreoffice" },
          total((starts) => starts.libreofficeRestarts),
        );
        this.inc(
          { engine: "chromium" },
          total((starts) => starts.chromiumRestarts),
        );
      },
    });
    new Counter({
      name: "octavo_sandbox_starts_total",
      help: "Sandbox processes started for the PDF engines (one per job that cannot reuse one, and replacements)",
      registers,
      collect() {
        this.reset();
        this.inc(total((starts) => starts.sandboxStarts));
      },
    });
  }
}
