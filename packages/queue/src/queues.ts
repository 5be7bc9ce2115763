import { type TraceCarrier, traceCarrier } from "@octavo/telemetry";
import { type JobsOptions, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { announceJobEnded } from "./job-ended.js";

/** The job-finished webhooks have their own queue and their own workers (a worker class of its own). */
export { WEBHOOK_QUEUE } from "@octavo/contracts";
/** Cluster-wide housekeeping (expired results), run by whichever worker takes it. */
export const MAINTENANCE_QUEUE = "maintenance";

/** Queue names must not contain ":" (BullMQ); operation ids are kebab-case already. */
export function assertQueueName(name: string): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`invalid queue name ${JSON.stringify(name)}`);
}

/**
 * What travels on an operation's queue: the job id, and the id of the request that created it, which
 * the worker's log lines repeat. Job state lives in the database, so a message can be delivered twice,
 * or late, without harm.
 */
export interface JobMessage {
  jobId: string;
  requestId?: string | undefined;
  /** The sender's trace context (W3C traceparent), when traced: the job's run continues its trace. */
  trace?: TraceCarrier;
}

/** What travels on the webhook queue: a recorded delivery's id (the row holds the rest). */
export interface WebhookMessage {
  deliveryId: string;
  /** The trace of the job whose end it reports, when traced. */
  trace?: TraceCarrier;
}

/** A delivery queued before the field had its name (until a rolling upgrade has drained the queue). */
interface EarlierWebhookMessage {
  jobId: string;
  trace?: undefined;
}

/** The delivery a webhook queue message names, whichever version queued it. */
export function deliveryIdOf(message: WebhookMessage | EarlierWebhookMessage): string {
  return "deliveryId" in message ? message.deliveryId : message.jobId;
}

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;

/**
 * A failing engine fails the job itself (it is settled, nothing is thrown). What throws is the
 * infrastructure: the database or the storage unreachable for a moment. Such a run is tried again 2, 4
 * and 8 s later before the job fails. A dead worker's job (stalled) is re-delivered apart from these.
 */
const OPERATION_JOB_OPTIONS = {
  attempts: 4,
  backoff: { type: "exponential", delay: 2_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 86_400, count: 10_000 },
} as const satisfies JobsOptions;

/** Enqueues job ids, one BullMQ queue per operation, created on first use. */
export class JobProducer {
  private readonly queues = new Map<string, Queue<JobMessage | WebhookMessage>>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  private queue(name: string): Queue<JobMessage | WebhookMessage> {
    let queue = this.queues.get(name);
    if (!queue) {
      assertQueueName(name);
      queue = new Queue<JobMessage | WebhookMessage>(name, {
        connection: this.connection,
        prefix: this.prefix,
      });
      // A queue repeats its connection's errors, which the connection's owner logs already (one line, not
      // one per queue, and not BullMQ's console output for an error no one listens to).
      queue.on("error", () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * The BullMQ job id is the message's own id (a job's, a delivery's), so enqueueing the same one twice
   * is a no-op while it is retained.
   */
  async enqueue(
    queueName: string,
    message: JobMessage | WebhookMessage,
    id: string,
    options: JobsOptions,
  ): Promise<void> {
    // The active trace context travels with the message (nothing when not traced).
    const trace = traceCarrier();
    const data = Object.keys(trace).length > 0 ? { ...message, trace } : message;
    await this.queue(queueName).add("run", data, { ...options, jobId: id });
  }

  /**
   * An operation's job, at its place (see @octavo/core's JobQueue): BullMQ's priority, where lower runs
   * first and equal priorities keep their order. Every job has one, since BullMQ runs jobs without a
   * priority before all others.
   */
  enqueueJob(operation: string, message: JobMessage, place: number): Promise<void> {
    const priority = Math.min(Math.max(1, Math.round(place)), MAX_PRIORITY);
    return this.enqueue(operation, message, message.jobId, { ...OPERATION_JOB_OPTIONS, priority });
  }

  /**
   * An operation's job once more, for a job the database still has queued (the janitor's): a copy BullMQ
   * retains as failed or completed is removed first, since adding under a retained id is a no-op. Such a
   * copy is left when every attempt failed to reach the database, so the job was never started or
   * settled there. A copy still waiting, delayed or running stays as it is.
   */
  async enqueueJobAgain(operation: string, message: JobMessage, place: number): Promise<void> {
    const queue = this.queue(operation);
    const state = await queue.getJobState(message.jobId);
    if (state === "failed" || state === "completed") await queue.remove(message.jobId);
    await this.enqueueJob(operation, message, place);
  }

  /**
   * Takes a waiting job off its queue (a canceled job). Best effort: a job a worker holds already stays,
   * and the worker finds it ended when it starts it.
   */
  async remove(queueName: string, jobId: string): Promise<void> {
    await this.queue(queueName).remove(jobId);
  }

  /** A repeating job, scheduled once per cluster however many processes ask (BullMQ job scheduler). */
  async scheduleRepeating(queueName: string, schedulerId: string, everyMs: number): Promise<void> {
    await this.queue(queueName).upsertJobScheduler(
      schedulerId,
      { every: everyMs },
      { name: schedulerId, data: { jobId: schedulerId } },
    );
  }

  /** Jobs waiting in the queue (the back-pressure estimates). */
  waitingCount(queueName: string): Promise<number> {
    // Operation jobs wait in the prioritized set (every one has a place), the others in the wait list;
    // a job waiting its account's turn (over its running cap) or its retry's backoff is delayed.
    return this.queue(queueName).getJobCountByTypes("wait", "prioritized", "delayed");
  }

  /** Jobs a consumer could take now: waiting, not delayed for a turn or a retry (the watchdog's). */
  takeableCount(queueName: string): Promise<number> {
    return this.queue(queueName).getJobCountByTypes("wait", "prioritized");
  }

  /** A queue's jobs by state, for the metrics (waiting: the wait list and the prioritized set). */
  async depth(
    queueName: string,
  ): Promise<{ waiting: number; active: number; delayed: number; failed: number }> {
    const counts = await this.queue(queueName).getJobCounts(
      "wait",
      "prioritized",
      "active",
      "delayed",
      "failed",
    );
    return {
      waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  /** Tells the API nodes that a job ended (see JobEndedListener). */
  announceEnded(jobId: string): Promise<void> {
    return announceJobEnded(this.connection, this.prefix, jobId);
  }

  /** Workers connected to a queue right now (readiness: somebody will run what we enqueue). */
  workerCount(queueName: string): Promise<number> {
    return this.queue(queueName).getWorkersCount();
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }
}
