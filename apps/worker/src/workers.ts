import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isOperationId,
  type JobKind,
  type Lane,
  laneOf,
  PIPELINE,
  queueConcurrency,
} from "@octavo/contracts";
import {
  createRedis,
  deliveryIdOf,
  JobEndedListener,
  type JobMessage,
  MAINTENANCE_QUEUE,
  WEBHOOK_QUEUE,
  webhookBackoff,
} from "@octavo/queue";
import { contextFrom, inSpan, SpanKind } from "@octavo/telemetry";
import { DelayedError, type Job, WaitingError, Worker } from "bullmq";
import pLimit, { type LimitFunction } from "p-limit";
import { afterSettled } from "./after-settled.js";
import { ConsumerWatchdog } from "./consumer-watchdog.js";
import type { WorkerContext } from "./context.js";
import { runJanitor } from "./janitor.js";
import { isSandboxed, sparePreloads } from "./operations.js";
import { ResidentEngines } from "./resident/resident-engines.js";
import { type RunOutcome, runJob } from "./run-job.js";
import { RunTimes } from "./run-times.js";
import { Sandboxes } from "./sandbox/sandboxes.js";
import { DeliveryFailed, deliverWebhook } from "./webhooks/deliver.js";

export interface RunningWorkers {
  /** Stop taking jobs, let running ones finish within the deadline, then hand the rest back. */
  close(deadlineMs?: number): Promise<void>;
  isRunning(): boolean;
}

const JANITOR_EVERY_MS = 60_000;
const WATCHDOG_EVERY_MS = 15_000;
/** A reused sandbox process is replaced after this many jobs: a long life gathers fragmentation. */
const SANDBOX_JOBS_PER_PROCESS = 500;
/** ... or once its resident memory passes this after a job. */
const SANDBOX_RESIDENT_BYTES = 768 * 1024 ** 2;
/**
 * A process kept for one account's next job (Fill form's, Read form's) ends after waiting this long: a
 * batch's jobs arrive well within it, and what the process holds of the account's values goes with it.
 */
const SANDBOX_ACCOUNT_IDLE_MS = 30_000;

/**
 * One BullMQ Worker per queue this process consumes. Job timeouts are ours (the sandbox kills the
 * tree), so the BullMQ lock only has to notice a dead worker: it is renewed while the job runs and
 * lapses `jobLockSeconds` after the worker stops, when another worker picks the job up again.
 */
export type QueueName = JobKind | typeof WEBHOOK_QUEUE;

/** A queue this process consumes, and how many of its jobs it takes at once (default: the process's). */
export interface QueueSpec {
  name: QueueName;
  concurrency?: number;
}

export interface WorkerOptions {
  /**
   * Called when consumers stopped taking the jobs waiting for them (see ConsumerWatchdog): the process
   * is of no more use and should end, so its supervisor starts a fresh one.
   */
  onStuck?: ((queues: string[]) => void) | undefined;
}

export async function startWorkers(
  ctx: WorkerContext,
  queueSpecs: readonly (QueueSpec | QueueName)[],
  options: WorkerOptions = {},
): Promise<RunningWorkers> {
  const specs = queueSpecs.map((spec) => (typeof spec === "string" ? { name: spec } : spec));
  // Jobs of each queue this process holds, for the watchdog.
  const holding = new Map<string, number>();
  const hold = async <T>(queue: string, run: () => Promise<T>): Promise<T> => {
    holding.set(queue, (holding.get(queue) ?? 0) + 1);
    watchdog.took(queue);
    try {
      return await run();
    } finally {
      holding.set(queue, (holding.get(queue) ?? 1) - 1);
    }
  };
  const watchdog = new ConsumerWatchdog({
    queues: specs.map((spec) => spec.name),
    waiting: (queue) => ctx.producer.takeableCount(queue),
    running: (queue) => holding.get(queue) ?? 0,
  });
  const connection = createRedis(ctx.redisUrl, "worker");
  // Its own connection (a subscriber does nothing else): the running jobs that end elsewhere, canceled.
  const endedElsewhere = new JobEndedListener(createRedis(ctx.redisUrl, "worker"), ctx.config.queuePrefix);
  const shutdown = new AbortController();
  const lockDuration = ctx.config.jobLockSeconds * 1000;
  const workers: Worker[] = [];
  // The engines of each lane run at most the process's concurrency at once: light jobs (milliseconds)
  // never wait behind a backlog of heavy ones (seconds to minutes), nor heavy ones behind light ones.
  const engineSlots: Record<Lane, LimitFunction> = {
    light: pLimit(ctx.config.workerConcurrency),
    heavy: pLimit(ctx.config.workerConcurrency),
  };
  // Native engine processes get their own limits from the engines' run().
  const sandboxes = new Sandboxes({
    maxHeapMb: ctx.config.sandboxMemoryMb,
    maxJobsPerProcess: SANDBOX_JOBS_PER_PROCESS,
    maxResidentBytes: SANDBOX_RESIDENT_BYTES,
    maxIdle: 2 * ctx.config.workerConcurrency,
    accountIdleMs: SANDBOX_ACCOUNT_IDLE_MS,
    urlAllowlist: ctx.config.urlAllowlist,
    preload: sparePreloads(specs.map((spec) => spec.name).filter(isOperationId)),
  });
  // LibreOffice's and Chromium's profiles and temp files; removed when the workers close.
  const residentDir = await mkdtemp(join(tmpdir(), "octavo-resident-"));
  const resident = new ResidentEngines({
    workDir: residentDir,
    allowlist: ctx.allowlist,
    officeInstances: ctx.config.workerConcurrency,
  });
  const runners = { sandboxes, resident };
  const unwatchEngines = ctx.metrics.watchEngines(() => {
    const restarts = resident.restarts();
    return {
      libreofficeRestarts: restarts.libreoffice,
      chromiumRestarts: restarts.chromium,
      sandboxStarts: sandboxes.started,
    };
  });
  const unwatchQueues = ctx.metrics.watchQueues({
    queues: specs.map((spec) => spec.name),
    depth: (queue) => ctx.producer.depth(queue),
  });

  const onFailed = (job: Job<JobMessage> | undefined, error: Error) => {
    if (!job) return;
    const lastAttempt = job.attemptsMade >= (job.opts.attempts ?? 1);
    // Not the last attempt: BullMQ runs it again after its backoff (OPERATION_JOB_OPTIONS).
    ctx.logger[lastAttempt ? "error" : "warn"](
      { err: error, ...job.data, queue: job.queueName, attempt: job.attemptsMade, lastAttempt },
      "job attempt failed",
    );
    if (lastAttempt && !shutdown.signal.aborted) {
      ctx.jobs
        .fail(
          job.data.jobId,
          "conversion_failed",
          "The job could not be run because of a problem on our side; it was not charged. Try again.",
        )
        .then((settled) => afterSettled(ctx, settled))
        .catch((failError: unknown) =>
          ctx.logger.error({ err: failError, ...job.data }, "could not mark the job failed"),
        );
    }
  };

  // On shutdown past the grace period, a running job goes back to the queue's wait list untouched
  // (not failed, no attempt used up), so another worker runs it at once.
  const handBack = async (job: Job<JobMessage>, token: string | undefined): Promise<never> => {
    await job.moveToWait(token);
    ctx.logger.warn({ ...job.data, queue: job.queueName }, "job handed back on shutdown");
    throw new WaitingError();
  };
  const runTimes = new RunTimes();
  // The job's account runs its plan's cap of the lane's jobs: the job waits about as long as the jobs of
  // its account ahead of it (its place) take on the cap's slots, and keeps its place in the queue.
  const waitTurn = async (job: Job<JobMessage>, queue: JobKind, cap: number, token?: string) => {
    await job.moveToDelayed(Date.now() + runTimes.turnDelayMs(queue, job.priority, cap), token);
    throw new DelayedError();
  };
  const processJobOf = (queue: JobKind) => (job: Job<JobMessage>, token?: string) =>
    hold(queue, () => processJob(queue, job, token));
  const processJob = async (queue: JobKind, job: Job<JobMessage>, token?: string) => {
    if (shutdown.signal.aborted) return handBack(job, token);
    // The engine slot is taken before the job is marked active and given back when its engines end: the
    // job's outputs are stored and it is settled while the next job's engines already run.
    let outcome: Promise<RunOutcome> | undefined;
    let started = 0;
    await engineSlots[laneOf(queue)](async () => {
      if (shutdown.signal.aborted) return;
      started = Date.now(); // the run time, not the wait for a slot
      await new Promise<void>((enginesDone) => {
        outcome = runJob(ctx, job.data.jobId, {
          operation: queue,
          runners,
          signal: shutdown.signal,
          enginesDone,
          endedElsewhere,
          trace: { carrier: job.data.trace, queuedAt: job.timestamp },
        });
        outcome.then(
          () => enginesDone(),
          () => enginesDone(),
        );
      });
    });
    const ended = outcome === undefined ? "handed-back" : await outcome;
    if (ended === "handed-back") return handBack(job, token);
    if (ended !== "finished") return waitTurn(job, queue, ended.cap, token);
    runTimes.record(queue, Date.now() - started);
  };

  const operationSpecs = specs.filter(
    (spec): spec is QueueSpec & { name: JobKind } => spec.name !== WEBHOOK_QUEUE,
  );
  const usesSandboxes = (queue: JobKind) => queue === PIPELINE || isSandboxed(queue);
  if (operationSpecs.some((spec) => usesSandboxes(spec.name))) sandboxes.prewarm();
  for (const { name: queue, concurrency } of operationSpecs) {
    const worker = new Worker<JobMessage>(queue, processJobOf(queue), {
      connection,
      prefix: ctx.config.queuePrefix,
      concurrency: concurrency ?? queueConcurrency(queue, ctx.config.workerConcurrency),
      lockDuration,
      stalledInterval: lockDuration,
      maxStalledCount: 2,
    });
    worker.on("failed", onFailed);
    worker.on("error", (error) => ctx.logger.error({ err: error, queue }, "worker error"));
    workers.push(worker);
  }

  const webhookSpec = specs.find((spec) => spec.name === WEBHOOK_QUEUE);
  if (webhookSpec) {
    // Deliveries are light network calls: more of them run at once than engine jobs.
    const webhooks = new Worker<Parameters<typeof deliveryIdOf>[0]>(
      WEBHOOK_QUEUE,
      (job) =>
        hold(WEBHOOK_QUEUE, () =>
          // Each attempt a span of the job's trace (the context its settle queued the delivery in).
          inSpan(
            "webhook.attempt",
            { "octavo.webhook.attempt": job.attemptsMade + 1, "messaging.system": "bullmq" },
            () =>
              deliverWebhook(
                ctx,
                deliveryIdOf(job.data),
                job.attemptsMade + 1,
                job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
              ),
            { parent: contextFrom(job.data.trace), kind: SpanKind.CONSUMER },
          ),
        ),
      {
        connection,
        prefix: ctx.config.queuePrefix,
        concurrency: webhookSpec.concurrency ?? 10,
        settings: { backoffStrategy: webhookBackoff },
      },
    );
    webhooks.on("error", (error) => ctx.logger.error({ err: error }, "webhook worker error"));
    // A refused delivery was logged with its job by deliverWebhook; this is anything else that threw.
    webhooks.on("failed", (job, error) => {
      if (!(error instanceof DeliveryFailed))
        ctx.logger.warn({ err: error, deliveryId: job && deliveryIdOf(job.data) }, "webhook attempt failed");
    });
    workers.push(webhooks);
  }

  const maintenance = new Worker(MAINTENANCE_QUEUE, () => runJanitor(ctx), {
    connection,
    prefix: ctx.config.queuePrefix,
    concurrency: 1,
  });
  maintenance.on("error", (error) => ctx.logger.error({ err: error }, "janitor worker error"));
  workers.push(maintenance);
  await ctx.producer.scheduleRepeating(MAINTENANCE_QUEUE, "janitor", JANITOR_EVERY_MS);
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  ctx.logger.info({ queues: specs, concurrency: ctx.config.workerConcurrency }, "workers started");

  let running = true;
  let stuck = false;
  const watching = setInterval(async () => {
    const queues = await watchdog.check(Date.now());
    if (queues.length === 0 || stuck || !running) return;
    stuck = true;
    ctx.logger.error({ queues }, "queue consumers stopped taking the jobs waiting for them");
    options.onStuck?.(queues);
  }, WATCHDOG_EVERY_MS);
  watching.unref();
  return {
    isRunning: () => running && !stuck && workers.every((worker) => worker.isRunning()),
    async close(deadlineMs = ctx.config.shutdownGraceSeconds * 1000) {
      running = false;
      clearInterval(watching);
      unwatchQueues();
      unwatchEngines();
      const graceful = Promise.all(workers.map((worker) => worker.close()));
      const timer = setTimeout(() => shutdown.abort(), deadlineMs);
      await graceful;
      clearTimeout(timer);
      sandboxes.close();
      await resident.close();
      await rm(residentDir, { recursive: true, force: true, maxRetries: 3 }).catch((error: unknown) =>
        ctx.logger.warn({ err: error, dir: residentDir }, "could not remove the resident engines' folder"),
      );
      endedElsewhere.close();
      connection.disconnect();
    },
  };
}
