import { type EndedJobFacts, endedJobFacts } from "./job-facts.js";
import type { Settled } from "./jobs.js";

/**
 * What an app lends `followJobEnd`: its metrics, its queue's steps and its logger. Core knows no queue
 * or metrics library; each app passes its own (the worker's, and the API's for a cancellation).
 */
export interface JobEndPorts {
  metrics: { jobFinished(facts: EndedJobFacts): void };
  /** Queues the job's webhook delivery and announces its end; each step that failed, for the log. */
  publishEnd(jobId: string, deliveryId: string | undefined): Promise<{ message: string; error: unknown }[]>;
  /** Takes a job off its queue: given where a job ends before a worker took it (canceled). */
  dequeue?(operation: string, jobId: string): Promise<void>;
  logger: { warn(fields: Record<string, unknown>, message: string): void };
}

/**
 * What follows a job's end, wherever it ended (a worker settling it, the API canceling it): it is
 * counted, it leaves its queue when asked (best effort: a message left behind finds the job ended),
 * and its end is published, so its webhook goes out and a worker running it stops its engines. Nothing
 * follows a job that had already ended.
 */
export async function followJobEnd(ports: JobEndPorts, settled: Settled | undefined): Promise<void> {
  if (!settled) return;
  const { job, deliveryId } = settled;
  const facts = endedJobFacts(job);
  if (facts) ports.metrics.jobFinished(facts);
  const log = { jobId: job.id, requestId: job.request_id ?? undefined, operation: job.operation, deliveryId };
  await ports
    .dequeue?.(job.operation, job.id)
    .catch((error: unknown) => ports.logger.warn({ err: error, ...log }, "job not taken off its queue"));
  for (const { message, error } of await ports.publishEnd(job.id, deliveryId))
    ports.logger.warn({ err: error, ...log }, message);
}
