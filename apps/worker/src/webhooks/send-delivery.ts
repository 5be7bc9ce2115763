import type { Settled } from "@octavo/core";
import { enqueueWebhookDelivery } from "@octavo/queue";
import type { WorkerContext } from "../context.js";

/**
 * Puts a settled job's webhook delivery, recorded with its final state, on the delivery queue. One that
 * does not get there (Redis down) stays pending in the database, and the janitor sends it.
 */
export async function sendDelivery(ctx: WorkerContext, settled: Settled | undefined): Promise<void> {
  const deliveryId = settled?.deliveryId;
  if (deliveryId === undefined) return;
  await enqueueWebhookDelivery(ctx.producer, deliveryId).catch((error: unknown) =>
    ctx.logger.warn({ err: error, deliveryId }, "webhook delivery not queued; the janitor will send it"),
  );
}
