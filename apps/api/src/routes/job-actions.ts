import { ApiError } from "@octavo/contracts";
import { followJobEnd, jobView, type Settled } from "@octavo/core";
import type { JobFileRow, JobRow } from "@octavo/db";
import { publishJobEnd } from "@octavo/queue";
import { type Response, Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf } from "../middleware/authenticate.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's job; an unknown id, a malformed one and another account's job all answer 404 alike. */
export async function ownJob(ctx: ApiContext, res: Response, jobId: string): Promise<JobRow> {
  const job = UUID.test(jobId)
    ? await ctx.jobs.findForAccount(jobId.toLowerCase(), accountIdOf(res.locals))
    : undefined;
  if (!job) throw new ApiError("not_found", "There is no job with this id.", `job_id: ${jobId}`);
  return job;
}

/** Deletes the files' stored objects, then records them deleted. */
async function deleteStored(ctx: ApiContext, files: readonly JobFileRow[]): Promise<void> {
  await Promise.all(files.map((file) => ctx.store.delete(file.storage_key)));
  await ctx.jobs.filesDeleted(files);
}

/** What follows a cancellation, as after any job's end on a worker, and the job leaves its queue. */
function afterCanceled(ctx: ApiContext, settled: Settled): Promise<void> {
  return followJobEnd(
    {
      metrics: ctx.metrics,
      logger: ctx.logger,
      publishEnd: (jobId, deliveryId) => publishJobEnd(ctx.producer, jobId, deliveryId),
      dequeue: (operation, jobId) => ctx.producer.remove(operation, jobId),
    },
    settled,
  );
}

/** POST /v1/jobs/{id}/cancel and DELETE /v1/jobs/{id}: additions to the spec's job API. */
export function jobActionsRouter(ctx: ApiContext): Router {
  const router = Router();
  // A queued or running job ends failed `canceled`, uncharged, and its inputs are deleted; a job that
  // ended first (even by a hair) keeps its outcome, and the answer is 409 job_finished.
  router.post("/v1/jobs/:jobId/cancel", async (req, res) => {
    const job = await ownJob(ctx, res, req.params.jobId);
    const cancellation = await ctx.jobs.cancel(job);
    if (cancellation.kind === "finished") {
      const { status } = cancellation.job;
      throw new ApiError(
        "job_finished",
        "The job has already ended and cannot be canceled.",
        `status: ${status}`,
      );
    }
    ctx.logger.info({ jobId: job.id, requestId: res.locals.requestId }, "job canceled");
    await deleteStored(ctx, cancellation.inputs);
    await afterCanceled(ctx, cancellation.settled);
    res.json(await jobView(cancellation.settled.job, [], ctx.downloadLinks, new Date()));
  });
  // A finished job's results go at once instead of after the hour; the job stays, for its status and
  // its credits. Deleting again answers the same.
  router.delete("/v1/jobs/:jobId", async (req, res) => {
    const job = await ownJob(ctx, res, req.params.jobId);
    const stored = await ctx.jobs.deleteResults(job);
    if (stored === undefined) {
      throw new ApiError(
        "job_not_finished",
        "The job has not finished; its results can be deleted once it has.",
        `status: ${job.status}. Cancel it with POST /v1/jobs/${job.id}/cancel, or wait for it to end.`,
      );
    }
    await deleteStored(ctx, stored);
    res.status(204).end();
  });
  return router;
}
