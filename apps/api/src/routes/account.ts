import { plans } from "@octavo/contracts";
import { isPlanId, usageOf } from "@octavo/core";
import { Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf } from "../middleware/authenticate.js";

export function accountRouter(ctx: ApiContext): Router {
  const router = Router();
  router.get("/v1/account", async (_req, res) => {
    const account = await ctx.accounts.requireAccount(accountIdOf(res.locals));
    if (!isPlanId(account.plan)) throw new Error(`account ${account.id} has an unknown plan ${account.plan}`);
    const plan = plans[account.plan];
    const usage = await usageOf(ctx.database, account.id, account.plan, new Date());
    res.json({
      id: account.id,
      email: account.email,
      plan: account.plan,
      creditsIncluded: usage.creditsIncluded,
      creditsUsed: usage.creditsUsed,
      creditsReserved: usage.creditsReserved,
      creditsRemaining: usage.creditsRemaining,
      overageCredits: usage.overageCredits,
      overageCostUsd: usage.overageCostUsd,
      periodStart: usage.periodStart,
      periodEnd: usage.periodEnd,
      limits: {
        requestsPerMinute: plan.requestsPerMinute,
        maxFileBytes: plan.maxFileBytes,
        webhooks: plan.webhooks,
      },
    });
  });
  return router;
}
