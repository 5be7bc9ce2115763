import { v7 as uuidv7 } from "uuid";

/** UUIDv7: the spec's UUIDs, time-ordered so new rows land at the end of the index. */
export function newId(): string {
  return uuidv7();
}

export function toIso(date: Date): string {
  return date.toISOString();
}

export interface BillingPeriod {
  /** First instant of the calendar month, UTC. */
  start: string;
  /** First instant of the next month (exclusive). */
  end: string;
}

/** Credits run per calendar month (UTC). */
export function billingPeriodOf(date: Date): BillingPeriod {
  const start = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
  const end = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}
