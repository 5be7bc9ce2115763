import { createServer, type RequestListener, type Server } from "node:http";
import {
  type ApiContext,
  createApp,
  createHealthApp,
  createMetricsApp,
  createOutbound,
  PlanRateLimiter,
  type ReadinessCheck,
} from "@octavo/api";
import { type JobKind, jobKinds, operationIds, PIPELINE, queueConcurrency } from "@octavo/contracts";
import { BacklogEstimator, JobActions } from "@octavo/core";
import { dashboardRouter } from "@octavo/dashboard";
import { pingDatabase } from "@octavo/db";
import { createRedis, JobEndedListener, pingRedis, publishJobEnd, WEBHOOK_QUEUE } from "@octavo/queue";
import {
  installedOperations,
  type QueueName,
  type QueueSpec,
  type RunningWorkers,
  startWorkers,
  type WorkerOptions,
} from "@octavo/worker";
import { UsageError } from "../output.js";
import type { QueueRuntime } from "../runtime.js";

export interface Serving {
  server: Server | undefined;
  /** The API's /metrics listener (OCTAVO_METRICS_PORT), when apart from `server`. */
  metricsServer: Server | undefined;
  workers: RunningWorkers | undefined;
  /** The API's address once listening, e.g. http://127.0.0.1:8000 */
  address: string | undefined;
  close(): Promise<void>;
}

/**
 * The operations whose engines are installed on this machine (@octavo/worker's operationPrograms), and
 * the pipeline when all are: a pipeline may chain any of them on the one worker that takes it.
 */
function implementedQueues(): JobKind[] {
  const installed = new Set<string>(installedOperations());
  const operations = operationIds.filter((id) => installed.has(id));
  return operations.length === operationIds.length ? [...operations, PIPELINE] : operations;
}

/**
 * What the API offers. With its own workers (`octavo start`), the operations this machine has engines
 * for; an API-only node (`octavo api`) has no engines and offers every operation, which waits in its
 * queue for the fleet's workers (readiness names the queues nobody consumes).
 */
function offeredOperations(withWorkers: boolean): JobKind[] {
  return withWorkers ? implementedQueues() : [...jobKinds];
}

/**
 * The queues a worker is given: `merge,split` or `ocr=1,compress=2` (a queue's own concurrency),
 * from the operations with engines and the webhook deliveries. Default: all, at the process's
 * concurrency. A queue may not take more jobs at once than `queueConcurrency` allows.
 */
export function resolveQueues(requested: string | undefined, processConcurrency: number): QueueSpec[] {
  const implemented: QueueName[] = [...implementedQueues(), WEBHOOK_QUEUE];
  if (requested === undefined || requested === "" || requested === "all")
    return implemented.map((name) => ({ name }));
  return namedQueues(parseQueues(requested, processConcurrency), implemented, "unknown or unavailable queue");
}

/**
 * What `octavo doctor --queues` checks: the same list as `octavo worker --queues`, against every
 * queue there is rather than the installed ones (a missing engine is what doctor reports). The
 * per-queue counts are read but not held against OCTAVO_WORKER_CONCURRENCY: doctor reads no settings.
 */
export function requestedQueues(requested: string): QueueSpec[] {
  const every: QueueName[] = [...jobKinds, WEBHOOK_QUEUE];
  if (requested === "all") return every.map((name) => ({ name }));
  return namedQueues(parseQueues(requested, undefined), every, "unknown queue");
}

/** The entries of a `--queues` list, each checked against the queues it may name. */
function namedQueues(
  entries: { name: string; concurrency?: number }[],
  allowed: readonly QueueName[],
  problem: string,
): QueueSpec[] {
  const names: readonly string[] = allowed;
  const isQueue = (name: string): name is QueueName => names.includes(name);
  const unknown = entries.map((entry) => entry.name).filter((name) => !isQueue(name));
  if (unknown.length > 0)
    throw new UsageError(`${problem} ${unknown.join(", ")}; available: ${allowed.join(", ")}`);
  return entries.flatMap(({ name, concurrency }) =>
    isQueue(name) ? [concurrency === undefined ? { name } : { name, concurrency }] : [],
  );
}

/** `merge,split=2`: each entry's name and concurrency, the counts checked against the process's when given. */
function parseQueues(
  requested: string,
  processConcurrency: number | undefined,
): { name: string; concurrency?: number }[] {
  return requested.split(",").map((entry) => parseQueueEntry(entry.trim(), processConcurrency));
}

/** `merge` or `merge=2`: a queue's name and, when given, how many of its jobs run at once. */
function parseQueueEntry(
  entry: string,
  processConcurrency: number | undefined,
): { name: string; concurrency?: number } {
  const [name = "", count] = entry.split("=");
  if (count === undefined) return { name };
  const concurrency = Number(count);
  if (!/^\d+$/.test(count) || concurrency < 1)
    throw new UsageError(`--queues ${entry}: the concurrency after "=" must be a whole number ≥ 1`);
  if (processConcurrency === undefined) return { name, concurrency };
  const operation = jobKinds.find((candidate) => candidate === name);
  const most = operation === undefined ? undefined : queueConcurrency(operation, processConcurrency);
  if (most !== undefined && concurrency > most)
    throw new UsageError(
      `--queues ${entry}: above the ${most} jobs this queue may take at once ` +
        `(OCTAVO_WORKER_CONCURRENCY ${processConcurrency}, twice that for light operations); ` +
        "raise it or lower the queue's",
    );
  return { name, concurrency };
}

function listen(app: RequestListener, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

function addressOf(server: Server, host: string): string | undefined {
  const bound = server.address();
  return typeof bound === "object" && bound ? `http://${host}:${bound.port}` : undefined;
}

/** What /readyz checks on every role: the shared services. */
function serviceChecks(runtime: QueueRuntime): ReadinessCheck[] {
  return [
    { name: "database", check: () => pingDatabase(runtime.database) },
    {
      name: "redis",
      check: async () => {
        if (!(await pingRedis(runtime.redisUrl))) throw new Error("Redis does not answer");
      },
    },
    { name: "storage", check: () => runtime.store.check() },
  ];
}

/** The API's advisory check: the offered operations' queues (and the webhooks') that nobody consumes. */
function consumersCheck(runtime: QueueRuntime, offered: readonly JobKind[]): ReadinessCheck {
  return {
    name: "workers",
    advisory: true,
    check: async () => {
      const consumed = [...offered, WEBHOOK_QUEUE];
      const counts = await Promise.all(consumed.map((queue) => runtime.producer.workerCount(queue)));
      const idle = consumed.filter((_queue, index) => (counts[index] ?? 0) === 0);
      if (idle.length > 0) throw new Error(`no worker consumes ${idle.join(", ")}`);
    },
  };
}

/**
 * The API's back-pressure estimates. The slots of a queue are its connected worker processes times the
 * jobs each takes at once with this process's OCTAVO_WORKER_CONCURRENCY (a fleet sets one value for all).
 */
function backlogEstimator(runtime: QueueRuntime): BacklogEstimator {
  const { config, producer } = runtime;
  return new BacklogEstimator(
    runtime.database,
    {
      waiting: (operation) => producer.waitingCount(operation),
      slots: async (operation) =>
        (await producer.workerCount(operation)) * queueConcurrency(operation, config.workerConcurrency),
    },
    { accountSeconds: config.accountBacklogSeconds, queueSeconds: config.queueBacklogSeconds },
  );
}

/**
 * Starts the API and/or the workers of one process on an open runtime. `octavo start` runs both,
 * `octavo api` and `octavo worker` one each; they share the same code. A worker without the API
 * answers the probes on OCTAVO_HEALTH_PORT when it is set.
 */
export async function serve(
  runtime: QueueRuntime,
  roles: { api: boolean; queues: QueueSpec[] | undefined },
  workerOptions: WorkerOptions = {},
): Promise<Serving> {
  const { config } = runtime;
  const workers = roles.queues ? await startWorkers({ ...runtime }, roles.queues, workerOptions) : undefined;
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  let address: string | undefined;
  let jobEnded: JobEndedListener | undefined;
  let unwatchQueues: (() => void) | undefined;
  if (roles.api) {
    const offered = offeredOperations(workers !== undefined);
    // Every API node reports every queue: a class of workers scaled to zero still shows its backlog.
    unwatchQueues = runtime.metrics.watchQueues({
      queues: [...offered, WEBHOOK_QUEUE],
      depth: (queue) => runtime.producer.depth(queue),
    });
    // A connection of its own (subscribed, it can run nothing else), retrying like a worker's.
    const subscriber = createRedis(runtime.redisUrl, "worker");
    subscriber.on("error", (error) =>
      runtime.logger.warn({ err: error }, "job notices: redis connection error"),
    );
    jobEnded = new JobEndedListener(subscriber, config.queuePrefix);
    const ctx: ApiContext = {
      ...runtime,
      jobEnded,
      availableOperations: new Set(offered),
      rateLimiter: new PlanRateLimiter(runtime.producerConnection, config.queuePrefix),
      backlog: backlogEstimator(runtime),
      jobActions: new JobActions(runtime.jobs, {
        metrics: runtime.metrics,
        logger: runtime.logger,
        publishEnd: (jobId, deliveryId) => publishJobEnd(runtime.producer, jobId, deliveryId),
        dequeue: (operation, jobId) => runtime.producer.remove(operation, jobId),
        deleteObject: (storageKey) => runtime.store.delete(storageKey),
      }),
      outbound: createOutbound({ allowlist: runtime.allowlist, timeoutMs: config.urlTimeoutSeconds * 1000 }),
      readinessChecks: [...serviceChecks(runtime), consumersCheck(runtime, offered)],
      dashboard: dashboardRouter({
        ...runtime,
        publicUrl: config.publicUrl,
        secretKey: config.secretKey,
        keyPrefix: config.queuePrefix,
        redis: runtime.producerConnection,
      }),
    };
    server = await listen(createApp(ctx), config.host, config.port);
    address = addressOf(server, config.host);
    runtime.logger.info({ address }, "API listening");
    if (config.metricsPort !== undefined && config.metricsPort !== config.port) {
      metricsServer = await listen(createMetricsApp(runtime.metrics), config.host, config.metricsPort);
      runtime.logger.info({ address: addressOf(metricsServer, config.host) }, "metrics listening");
    }
  } else if (workers && config.healthPort !== undefined) {
    const probes = { readinessChecks: serviceChecks(runtime), isAlive: () => workers.isRunning() };
    server = await listen(createHealthApp(probes, runtime.metrics), config.host, config.healthPort);
    address = addressOf(server, config.host);
    runtime.logger.info({ address }, "worker probes listening");
  }
  return {
    server,
    metricsServer,
    workers,
    address,
    async close() {
      unwatchQueues?.();
      for (const closing of [server, metricsServer]) {
        if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
      }
      await workers?.close();
      jobEnded?.close();
    },
  };
}
