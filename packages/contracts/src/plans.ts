import type { Lane } from "./lanes.js";

export const planIds = ["free", "starter", "pro", "business"] as const;
export type PlanId = (typeof planIds)[number];

export interface Plan {
  readonly name: string;
  readonly priceUsdPerMonth: number;
  /** Credits included per calendar month. */
  readonly creditsPerMonth: number;
  /** Per account. */
  readonly requestsPerMinute: number;
  /** Per file, in bytes. */
  readonly maxFileBytes: number;
  readonly webhooks: boolean;
  /** Price of credits past the included ones; null means a hard stop (402 quota_exceeded). */
  readonly overageUsdPer1000Credits: number | null;
  /**
   * Jobs of the account that may run at once, per lane (not in the spec's table: octavo's own). More wait
   * their turn, so one account cannot take every engine slot of a class from the others.
   */
  readonly maxRunningJobs: Readonly<Record<Lane, number>>;
}

/** The spec's "MB" in file limits is a mebibyte: 1024 * 1024 bytes. */
export const bytesPerMB = 1024 * 1024;

/** The spec's Limits table. */
export const plans: Record<PlanId, Plan> = {
  free: {
    name: "Free",
    priceUsdPerMonth: 0,
    creditsPerMonth: 100,
    requestsPerMinute: 10,
    maxFileBytes: 10 * bytesPerMB,
    webhooks: false,
    overageUsdPer1000Credits: null,
    maxRunningJobs: { light: 2, heavy: 1 },
  },
  starter: {
    name: "Starter",
    priceUsdPerMonth: 19,
    creditsPerMonth: 2_500,
    requestsPerMinute: 60,
    maxFileBytes: 25 * bytesPerMB,
    webhooks: true,
    overageUsdPer1000Credits: 10,
    maxRunningJobs: { light: 4, heavy: 2 },
  },
  pro: {
    name: "Pro",
    priceUsdPerMonth: 49,
    creditsPerMonth: 10_000,
    requestsPerMinute: 120,
    maxFileBytes: 50 * bytesPerMB,
    webhooks: true,
    overageUsdPer1000Credits: 8,
    maxRunningJobs: { light: 8, heavy: 4 },
  },
  business: {
    name: "Business",
    priceUsdPerMonth: 149,
    creditsPerMonth: 50_000,
    requestsPerMinute: 300,
    maxFileBytes: 50 * bytesPerMB,
    webhooks: true,
    overageUsdPer1000Credits: 5,
    maxRunningJobs: { light: 16, heavy: 8 },
  },
};
