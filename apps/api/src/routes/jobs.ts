import { ApiError } from "@octavo/contracts";
import { jobView } from "@octavo/core";
import { findJobForAccount } from "@octavo/db";
import { Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf } from "../middleware/authenticate.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function jobsRouter(ctx: ApiContext): Router {
  const router = Router();
  router.get("/v1/jobs/:jobId", async (req, res) => {
    const { jobId } = req.params;
    // An unknown id, a malformed id and another account's job all look the same from outside.
    const job = UUID.test(jobId)
      ? await findJobForAccount(ctx.database.db, jobId.toLowerCase(), accountIdOf(res.locals))
      : undefined;
    if (!job) throw new ApiError("not_found", "There is no job with this id.", `job_id: ${jobId}`);
    const outputs = job.status === "done" ? await ctx.jobs.files(job.id, "output") : [];
    if (job.status === "queued" || job.status === "active") res.setHeader("Retry-After", "1");
    res.json(jobView(job, outputs, ctx.links, new Date()));
  });
  return router;
}
