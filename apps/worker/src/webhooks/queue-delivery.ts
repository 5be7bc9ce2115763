import { newId, toIso } from "@octavo/core";
import { findJob, insertWebhookDelivery } from "@octavo/db";
import { WEBHOOK_QUEUE } from "@octavo/queue";
import type { WorkerContext } from "../context.js";

/** Three retries after the first attempt, 5, 15 and 25 s apart: about 45 s in all, as the spec says. */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 15_000, 25_000] as const;

export function webhookBackoff(attemptsMade: number): number {
  return WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1] ?? 25_000;
}

export const WEBHOOK_JOB_OPTIONS = {
  attempts: 1 + WEBHOOK_RETRY_DELAYS_MS.length,
  backoff: { type: "custom" },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 86_400, count: 10_000 },
};

/**
 * A job has ended: if it asked for a webhook, record a delivery and put it on the delivery queue.
 * The row is written first, so a delivery lost on its way to Redis is found and sent by the janitor.
 */
export async function queueWebhook(ctx: WorkerContext, jobId: string): Promise<void> {
  const job = await findJob(ctx.database.db, jobId);
  if (!job?.webhook_url) return;
  const id = newId();
  await insertWebhookDelivery(ctx.database.db, {
    id,
    job_id: jobId,
    account_id: job.account_id,
    url: job.webhook_url,
    status: "pending",
    last_status_code: null,
    last_error: null,
    created_at: toIso(new Date()),
    finished_at: null,
  });
  await ctx.producer.enqueue(WEBHOOK_QUEUE, id, WEBHOOK_JOB_OPTIONS);
}
