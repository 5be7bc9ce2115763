import type { JobProducer } from "./queues.js";
import { WEBHOOK_QUEUE } from "./queues.js";

/** Three retries after the first attempt, 5, 15 and 25 s apart: about 45 s in all, as the spec says. */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 15_000, 25_000] as const;

/** BullMQ's custom backoff for the delivery queue's workers. */
export function webhookBackoff(attemptsMade: number): number {
  return WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1] ?? 25_000;
}

export const WEBHOOK_JOB_OPTIONS = {
  attempts: 1 + WEBHOOK_RETRY_DELAYS_MS.length,
  backoff: { type: "custom" },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 86_400, count: 10_000 },
};

/** Puts a recorded delivery (its row written first) on the delivery queue. */
export function enqueueWebhookDelivery(producer: JobProducer, deliveryId: string): Promise<void> {
  return producer.enqueue(WEBHOOK_QUEUE, { deliveryId }, deliveryId, WEBHOOK_JOB_OPTIONS);
}

/** A step of `publishJobEnd` that did not happen, for its caller to log. */
export interface JobEndFailure {
  message: string;
  error: unknown;
}

/**
 * What a job's end sets off, wherever it ended (a worker settling it, the API canceling it), each best
 * effort: its webhook delivery, recorded with its end, goes on the delivery queue (one that does not
 * stays pending in the database, and the janitor sends it), and the API nodes' long polls and the
 * workers hear that it ended (a long poll that misses it reads the job again within half a second).
 */
export async function publishJobEnd(
  producer: JobProducer,
  jobId: string,
  deliveryId: string | undefined,
): Promise<JobEndFailure[]> {
  const failures: JobEndFailure[] = [];
  if (deliveryId !== undefined) {
    await enqueueWebhookDelivery(producer, deliveryId).catch((error: unknown) =>
      failures.push({ message: "webhook delivery not queued; the janitor will send it", error }),
    );
  }
  await producer
    .announceEnded(jobId)
    .catch((error: unknown) => failures.push({ message: "job end not announced", error }));
  return failures;
}
