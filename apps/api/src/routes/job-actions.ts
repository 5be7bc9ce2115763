import { jobView } from "@octavo/core";
import { Router } from "express";
import type { ApiContext } from "../context.js";
import { ownerOf } from "../middleware/authenticate.js";

/** POST /v1/jobs/{id}/cancel and DELETE /v1/jobs/{id}: additions to the spec's job API (rules in core's JobActions). */
export function jobActionsRouter(ctx: ApiContext): Router {
  const router = Router();
  router.post("/v1/jobs/:jobId/cancel", async (req, res) => {
    const job = await ctx.jobActions.cancel(ownerOf(res.locals), req.params.jobId);
    ctx.logger.info({ jobId: job.id, requestId: res.locals.requestId }, "job canceled");
    res.json(await jobView(job, [], ctx.downloadLinks, new Date()));
  });
  router.delete("/v1/jobs/:jobId", async (req, res) => {
    await ctx.jobActions.deleteResults(ownerOf(res.locals), req.params.jobId);
    res.status(204).end();
  });
  return router;
}
