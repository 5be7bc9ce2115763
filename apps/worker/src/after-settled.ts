import { endedJobFacts, type Settled } from "@octavo/core";
import { enqueueWebhookDelivery } from "@octavo/queue";
import type { WorkerContext } from "./context.js";

/**
 * What follows a job's settlement, both best effort: its webhook delivery, recorded with its final
 * state, goes on the delivery queue (one that does not get there stays pending in the database, and
 * the janitor sends it), and the API nodes hear that the job ended (a long poll that misses it reads
 * the job again within half a second). Nothing follows a job that had already ended.
 */
export async function afterSettled(
  ctx: WorkerContext,
  jobId: string,
  settled: Settled | undefined,
): Promise<void> {
  if (!settled) return;
  const { deliveryId, job } = settled;
  const log = { jobId, requestId: job.request_id ?? undefined, operation: job.operation };
  const facts = endedJobFacts(job);
  if (facts) ctx.metrics.jobFinished(facts);
  if (deliveryId !== undefined) {
    await enqueueWebhookDelivery(ctx.producer, deliveryId).catch((error: unknown) =>
      ctx.logger.warn(
        { err: error, ...log, deliveryId },
        "webhook delivery not queued; the janitor will send it",
      ),
    );
  }
  await ctx.producer
    .announceEnded(jobId)
    .catch((error: unknown) => ctx.logger.warn({ err: error, ...log }, "job end not announced"));
}
