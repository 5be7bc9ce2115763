import { recordWebhookDelivery } from "@octavo/core";
import { findJob } from "@octavo/db";
import { enqueueWebhookDelivery } from "@octavo/queue";
import type { WorkerContext } from "../context.js";

/**
 * A job has ended: if it asked for a webhook, record a delivery and put it on the delivery queue.
 * The row is written first, so a delivery lost on its way to Redis is found and sent by the janitor.
 */
export async function queueWebhook(ctx: WorkerContext, jobId: string): Promise<void> {
  const job = await findJob(ctx.database.db, jobId);
  if (!job?.webhook_url) return;
  const id = await recordWebhookDelivery(ctx.database.db, {
    jobId,
    accountId: job.account_id,
    url: job.webhook_url,
  });
  await enqueueWebhookDelivery(ctx.producer, id);
}
