import { plans } from "@octavo/contracts";
import { creditsChart, recentJobs, testUsageOf, usageOf } from "@octavo/core";
import { Router } from "express";
import type { DashboardContext } from "../context.js";
import type { CsrfTokens } from "../csrf.js";
import { viewedMode } from "../mode.js";
import { sendPage } from "../render.js";
import { customerOf } from "../session.js";
import { JobsPage, STATUSES } from "../views/jobs.js";
import { OverviewPage, TestOverviewPage } from "../views/overview.js";
import { PlansPage } from "../views/plans.js";

const RECENT_JOBS = 50;

/** The read-only pages: overview, jobs and plans. */
export function pageRoutes(ctx: DashboardContext, csrf: CsrfTokens): Router {
  const router = Router();
  const { database } = ctx;

  router.get("/", async (req, res) => {
    const { accountId, email, plan } = customerOf(res);
    const now = new Date();
    if (viewedMode(req) === "test") {
      const usage = await testUsageOf(database, accountId, now);
      sendPage(res, TestOverviewPage({ csrf: csrf.token(req, res), email, usage }));
      return;
    }
    const [usage, days] = await Promise.all([
      usageOf(database, accountId, plan, now),
      creditsChart(database, accountId, plan, now),
    ]);
    sendPage(
      res,
      OverviewPage({
        csrf: csrf.token(req, res),
        email,
        planName: plans[plan].name,
        paid: plans[plan].overageUsdPer1000Credits !== null,
        usage,
        days,
      }),
    );
  });

  router.get("/jobs", async (req, res) => {
    const { accountId, email } = customerOf(res);
    const status = STATUSES.find((candidate) => candidate === req.query.status);
    // The live or the test keys' jobs, never both in one list.
    const mode = viewedMode(req);
    const jobs = await recentJobs(
      database,
      ctx.downloadLinks,
      { accountId, mode },
      {
        limit: RECENT_JOBS,
        now: new Date(),
        ...(status ? { status } : {}),
      },
    );
    sendPage(res, JobsPage({ csrf: csrf.token(req, res), email, jobs, status, mode }));
  });

  router.get("/plan", (req, res) => {
    const { accountId, email, plan } = customerOf(res);
    sendPage(res, PlansPage({ csrf: csrf.token(req, res), email, current: plan, accountId }));
  });

  return router;
}
