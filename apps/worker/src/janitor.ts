import { enqueueWebhookDelivery } from "@octavo/queue";
import { afterSettled } from "./after-settled.js";
import type { WorkerContext } from "./context.js";

const BATCH = 500;
/** Delivery records (the dashboard's "recent deliveries") are kept 30 days, as Stripe keeps its events. */
export const WEBHOOK_DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** A queued job older than this never reached Redis (the API enqueues after commit): send it again. */
const REENQUEUE_AFTER_MS = 60_000;

/**
 * Cluster-wide housekeeping, run by one worker at a time from a repeating maintenance job:
 * results past their TTL are deleted (their jobs keep their status and say the outputs expired),
 * inputs left by a crash are deleted, queued jobs that never reached the queue are re-enqueued, and
 * jobs that outlived every timeout are failed, so no job stays queued or active forever; old
 * idempotency keys, old webhook delivery records and expired dashboard sessions are deleted.
 */
export async function runJanitor(
  ctx: WorkerContext,
  now = new Date(),
): Promise<{ expired: number; leftovers: number; requeued: number; failed: number; deliveries: number }> {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const { housekeeping } = ctx;

  const expired = await housekeeping.expiredOutputs(now, ctx.config.resultTtlSeconds, BATCH);
  const leftovers = await housekeeping.leftoverInputs(BATCH);
  const files = [...expired, ...leftovers];
  await Promise.all(files.map((file) => ctx.store.delete(file.storage_key)));
  await ctx.jobs.filesDeleted(files, now);

  let requeued = 0;
  let failed = 0;
  const hardLimitMs = (ctx.config.jobTimeoutSeconds * 3 + ctx.config.jobLockSeconds * 3) * 1000;
  for (const job of await housekeeping.overdueJobs(ago(REENQUEUE_AFTER_MS), BATCH)) {
    const referenceTime = Date.parse(job.started_at ?? job.created_at);
    if (job.status === "active" && now.getTime() - referenceTime > hardLimitMs) {
      const settled = await ctx.jobs.fail(
        job.id,
        "timeout",
        "The job did not finish in time and was stopped.",
        now,
      );
      if (settled) {
        failed += 1;
        await afterSettled(ctx, settled);
      }
    } else if (job.status === "queued") {
      await ctx.jobs.enqueueAgain(job);
      requeued += 1;
    }
  }
  // Deliveries whose queue message was lost (Redis down when the job ended) are sent again; a delivery
  // still in the queue keeps its BullMQ job id, so this adds nothing twice.
  for (const delivery of await ctx.deliveries.unfinished(ago(REENQUEUE_AFTER_MS * 2), BATCH)) {
    await enqueueWebhookDelivery(ctx.producer, delivery.id);
  }
  await housekeeping.pruneKeysAndSessions(now);
  const deliveries = await ctx.deliveries.pruneFinished(ago(WEBHOOK_DELIVERY_RETENTION_MS), BATCH);

  const counts = { expired: expired.length, leftovers: leftovers.length, requeued, failed, deliveries };
  if (files.length + requeued + failed + deliveries > 0) ctx.logger.info(counts, "janitor");
  return counts;
}
