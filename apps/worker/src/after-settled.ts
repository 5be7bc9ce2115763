import { isOperationId, jobErrorCodes } from "@octavo/contracts";
import type { Settled } from "@octavo/core";
import type { JobRow } from "@octavo/db";
import { enqueueWebhookDelivery } from "@octavo/queue";
import type { WorkerContext } from "./context.js";

/** Seconds between two of a job's ISO times, when both are known. */
function secondsBetween(from: string | null, to: string | null): number | undefined {
  return from && to ? Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000) : undefined;
}

/** The ended job in the metrics: its status and error code, run time and wait in the queue. */
function countEnded(ctx: WorkerContext, job: JobRow): void {
  if (!isOperationId(job.operation) || (job.status !== "done" && job.status !== "failed")) return;
  ctx.metrics.jobFinished({
    operation: job.operation,
    status: job.status,
    code: jobErrorCodes.find((code) => code === job.error_code),
    runSeconds: secondsBetween(job.started_at, job.finished_at),
    queueWaitSeconds: secondsBetween(job.created_at, job.started_at),
  });
}

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
  countEnded(ctx, job);
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
