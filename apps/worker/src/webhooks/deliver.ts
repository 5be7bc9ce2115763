import { jobView, webhookSignature } from "@octavo/core";
import { OutboundError, postJson } from "@octavo/net";
import { activeSpan } from "@octavo/telemetry";
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
  const pending = await ctx.deliveries.pending(deliveryId);
  if (!pending) return; // unknown, delivered already, or given up
  const { delivery, job, outputs } = pending;
  const now = new Date();
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
  const span = activeSpan();
  span.setAttribute("octavo.job.id", job.id);
  if (statusCode !== null) span.setAttribute("http.response.status_code", statusCode);
  await ctx.deliveries.recordAttempt(
    delivery.id,
    {
      attempt,
      startedAt: new Date(started),
      statusCode,
      error: problem,
      durationMs: Date.now() - started,
    },
    {
      status: delivered ? "delivered" : lastAttempt ? "failed" : "pending",
      finishedAt: delivered || lastAttempt ? new Date() : null,
    },
  );
  ctx.metrics.webhookAttempt(delivered ? "delivered" : "failed", delivered || lastAttempt);
  const log = { jobId: job.id, requestId: job.request_id ?? undefined, deliveryId: delivery.id, attempt };
  if (delivered) ctx.logger.info({ ...log, statusCode }, "webhook delivered");
  else ctx.logger.warn({ ...log, statusCode, problem, lastAttempt }, "webhook attempt failed");
  if (!delivered) throw new DeliveryFailed(`webhook ${delivery.id} attempt ${attempt}: ${problem}`);
}
