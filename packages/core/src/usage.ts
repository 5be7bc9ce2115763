import { type PlanId, plans } from "@octavo/contracts";
import type { DatabaseHandle, Db } from "@octavo/db";
import { kyselyOf, ledgerTotals, reservedCredits, testJobTotals } from "@octavo/db/repositories";
import { billingPeriodOf } from "./time.js";

export interface Usage {
  periodStart: string;
  periodEnd: string;
  /** The plan's monthly credits plus this month's grants and corrections. */
  creditsIncluded: number;
  creditsUsed: number;
  creditsReserved: number;
  creditsRemaining: number;
  overageCredits: number;
  overageCostUsd: number;
}

/**
 * Credits of the calendar month: charged by finished jobs (ledger), held by unfinished ones
 * (reservations), against the plan's allowance adjusted by grants and corrections.
 */
export function usageOf(
  database: DatabaseHandle,
  accountId: string,
  plan: PlanId,
  now: Date,
): Promise<Usage> {
  return usageIn(kyselyOf(database), accountId, plan, now);
}

/** The same, read in an open transaction (a job's acceptance checks it with the account locked). */
export async function usageIn(db: Db, accountId: string, plan: PlanId, now: Date): Promise<Usage> {
  const period = billingPeriodOf(now);
  const [totals, reserved] = await Promise.all([
    ledgerTotals(db, accountId, period.start),
    reservedCredits(db, accountId, period.start),
  ]);
  const included = Math.max(0, plans[plan].creditsPerMonth + totals.adjustments);
  const overage = Math.max(0, totals.charged - included);
  const rate = plans[plan].overageUsdPer1000Credits ?? 0;
  return {
    periodStart: period.start,
    periodEnd: period.end,
    creditsIncluded: included,
    creditsUsed: totals.charged,
    creditsReserved: reserved,
    creditsRemaining: Math.max(0, included - totals.charged - reserved),
    overageCredits: overage,
    overageCostUsd: Math.round((overage * rate) / 10) / 100, // rate is per 1,000 credits; cents
  };
}

/** Test mode's month: its jobs cost nothing, so it is counted from the jobs themselves. */
export interface TestUsage {
  periodStart: string;
  periodEnd: string;
  jobs: number;
  done: number;
  failed: number;
  /** Queued or running. */
  unfinished: number;
  /** What the done ones would have cost with a live key; charged: none. */
  creditsNotCharged: number;
}

export async function testUsageOf(
  database: DatabaseHandle,
  accountId: string,
  now: Date,
): Promise<TestUsage> {
  const period = billingPeriodOf(now);
  const totals = await testJobTotals(kyselyOf(database), accountId, period.start);
  const count = (status: string) => totals.find((row) => row.status === status)?.jobs ?? 0;
  return {
    periodStart: period.start,
    periodEnd: period.end,
    jobs: totals.reduce((sum, row) => sum + row.jobs, 0),
    done: count("done"),
    failed: count("failed"),
    unfinished: count("queued") + count("active"),
    creditsNotCharged: totals.find((row) => row.status === "done")?.credits ?? 0,
  };
}
