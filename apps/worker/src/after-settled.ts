import type { Settled } from "@octavo/core";
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
  const { deliveryId } = settled;
  if (deliveryId !== undefined) {
    await enqueueWebhookDelivery(ctx.producer, deliveryId).catch((error: unknown) =>
      ctx.logger.warn({ err: error, deliveryId }, "webhook delivery not queued; the janitor will send it"),
    );
  }
  await ctx.producer
    .announceEnded(jobId)
    .catch((error: unknown) => ctx.logger.warn({ err: error, jobId }, "job end not announced"));
}
