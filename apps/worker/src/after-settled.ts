import { endedJobFacts, type Settled } from "@octavo/core";
import { publishJobEnd } from "@octavo/queue";
import type { WorkerContext } from "./context.js";

/**
 * What follows a job's settlement: it is counted in the metrics, and its end is published (its webhook
 * queued, the end announced: @octavo/queue's publishJobEnd). Nothing follows a job that had already
 * ended.
 */
export async function afterSettled(
  ctx: WorkerContext,
  jobId: string,
  settled: Settled | undefined,
): Promise<void> {
  if (!settled) return;
  const { deliveryId, job } = settled;
  const facts = endedJobFacts(job);
  if (facts) ctx.metrics.jobFinished(facts);
  const log = { jobId, requestId: job.request_id ?? undefined, operation: job.operation, deliveryId };
  for (const { message, error } of await publishJobEnd(ctx.producer, jobId, deliveryId))
    ctx.logger.warn({ err: error, ...log }, message);
}
