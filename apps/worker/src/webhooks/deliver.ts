import { jobView, newId, toIso, webhookSignature } from "@octavo/core";
import { findJob, findWebhookDelivery, listJobFiles, recordWebhookAttempt } from "@octavo/db";
import { OutboundError, postJson } from "@octavo/net";
import type { WorkerContext } from "../context.js";

const DELIVERY_TIMEOUT_MS = 10_000;

export class DeliveryFailed extends Error {
  override readonly name = "DeliveryFailed";
}

/**
 * One delivery attempt: POST the job (the same JSON as GET /v1/jobs/{id}) signed with the account's
 * secret(s), and record the attempt. A non-2xx answer, a timeout or a refused connection throws, so
 * the queue retries; the last failure marks the delivery failed.
 */
export async function deliverWebhook(
  ctx: WorkerContext,
  deliveryId: string,
  attempt: number,
  lastAttempt: boolean,
): Promise<void> {
  const { db } = ctx.database;
  const delivery = await findWebhookDelivery(db, deliveryId);
  if (delivery?.status !== "pending") return; // unknown, delivered already, or given up
  const job = await findJob(db, delivery.job_id);
  if (!job) return;
  const now = new Date();
  const outputs = job.status === "done" ? await listJobFiles(db, job.id, "output") : [];
  const body = JSON.stringify(await jobView(job, outputs, ctx.downloadLinks, now));
  const secrets = await ctx.accounts.signingSecrets(job.account_id, now);
  const headers = {
    "content-type": "application/json",
    "user-agent": "octavo-webhooks/1.0",
    "svc-signature": webhookSignature(secrets, body, Math.floor(now.getTime() / 1000)),
    "svc-webhook-id": delivery.id,
  };

  const started = Date.now();
  let statusCode: number | null = null;
  let problem: string | null = null;
  try {
    statusCode = (
      await postJson(delivery.url, body, headers, {
        allowlist: ctx.allowlist,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      })
    ).status;
    if (statusCode < 200 || statusCode > 299) problem = `the receiver answered ${statusCode}`;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    problem = error.message;
  }
  const delivered = problem === null;
  await recordWebhookAttempt(
    db,
    {
      id: newId(),
      delivery_id: delivery.id,
      attempt,
      started_at: toIso(new Date(started)),
      status_code: statusCode,
      error: problem,
      duration_ms: Date.now() - started,
    },
    {
      status: delivered ? "delivered" : lastAttempt ? "failed" : "pending",
      finishedAt: delivered || lastAttempt ? toIso(new Date()) : null,
    },
  );
  if (!delivered) throw new DeliveryFailed(`webhook ${delivery.id} attempt ${attempt}: ${problem}`);
}
