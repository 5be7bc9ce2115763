import { type Db, insertWebhookDelivery } from "@octavo/db";
import { newId, toIso } from "./time.js";

/**
 * Records a pending delivery of a job's webhook and returns its id. The row is written before the
 * delivery goes on the queue, so one lost on its way to Redis is found and sent by the janitor.
 */
export async function recordWebhookDelivery(
  db: Db,
  delivery: { jobId: string; accountId: string; url: string },
  now = new Date(),
): Promise<string> {
  const id = newId();
  await insertWebhookDelivery(db, {
    id,
    job_id: delivery.jobId,
    account_id: delivery.accountId,
    url: delivery.url,
    status: "pending",
    last_status_code: null,
    last_error: null,
    created_at: toIso(now),
    finished_at: null,
  });
  return id;
}
