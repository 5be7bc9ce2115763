import { ApiError } from "@octavo/contracts";
import { InvalidCursorError, type JobPage, jobView } from "@octavo/core";
import type { JobRow } from "@octavo/db";
import { type Request, Router } from "express";
import type { ApiContext } from "../context.js";
import { ownerOf } from "../middleware/authenticate.js";
import { parseJobListQuery } from "./job-list-query.js";

const MAX_WAIT_SECONDS = 60;
/**
 * A held request answers when a worker says the job ended; it also reads the job this often, in case
 * such a notice was lost (they are best effort).
 */
const FALLBACK_READ_MS = 500;

function waitSeconds(req: Request): number {
  const raw = req.query.wait;
  if (raw === undefined) return 0;
  if (typeof raw !== "string" || !/^\d{1,2}$/.test(raw) || Number(raw) > MAX_WAIT_SECONDS) {
    throw new ApiError(
      "invalid_request",
      "The wait parameter is not valid.",
      `wait: must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`,
    );
  }
  return Number(raw);
}

const finished = (job: JobRow) => job.status === "done" || job.status === "failed";

export function jobsRouter(ctx: ApiContext): Router {
  const router = Router();
  // The caller's jobs, newest first, a page at a time; output links only when asked (?include=outputs).
  router.get("/v1/jobs", async (req, res) => {
    const { query, includeOutputs } = parseJobListQuery(req.query);
    let page: JobPage;
    try {
      page = await ctx.jobs.list(ownerOf(res.locals), query);
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new ApiError("invalid_options", "The cursor parameter is not valid.", error.message);
      throw error;
    }
    const now = new Date();
    const outputs = includeOutputs ? await ctx.jobs.outputsOf(page.jobs) : undefined;
    const data = await Promise.all(
      page.jobs.map((job) => jobView(job, outputs && (outputs.get(job.id) ?? []), ctx.downloadLinks, now)),
    );
    res.json({ data, hasMore: page.hasMore, nextCursor: page.nextCursor });
  });
  router.get("/v1/jobs/:jobId", async (req, res) => {
    const wait = waitSeconds(req);
    const owner = ownerOf(res.locals);
    let job = await ctx.jobActions.own(owner, req.params.jobId);
    const load = () => ctx.jobs.findForAccount(job.id, owner);
    // ?wait=N holds the answer until the job ends (or N seconds pass): one request instead of many polls.
    const deadline = Date.now() + wait * 1000;
    while (!finished(job) && Date.now() < deadline && !req.socket.destroyed) {
      // Listening first, then reading: an end announced in between is seen by the read.
      const ended = ctx.jobEnded.wait(job.id, Math.min(FALLBACK_READ_MS, deadline - Date.now()));
      job = (await load()) ?? job;
      if (!finished(job)) await ended;
    }
    job = finished(job) ? job : ((await load()) ?? job);
    const outputs = job.status === "done" ? await ctx.jobs.files(job.id, "output") : [];
    if (!finished(job)) res.setHeader("Retry-After", "1");
    res.json(await jobView(job, outputs, ctx.downloadLinks, new Date()));
  });
  return router;
}
