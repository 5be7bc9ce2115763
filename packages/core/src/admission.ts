import { ApiError, durationInWords, type JobKind, type PlanId, plans } from "@octavo/contracts";
import type { BacklogEstimator } from "./backlog.js";

/*
 * The service's own rules for taking a job, before it exists: what the plan allows, what this
 * server runs, and how much is waiting. The API checks the request's form and inputs around them.
 */

/** Webhooks are a paid-plan feature: 403 webhooks_not_in_plan on the Free plan. */
export function requireWebhooksInPlan(plan: PlanId): void {
  if (plans[plan].webhooks) return;
  throw new ApiError(
    "webhooks_not_in_plan",
    "Webhooks are not part of the Free plan.",
    "Poll GET /v1/jobs/{id}, or upgrade to a paid plan.",
  );
}

/** How long a client waits before asking again for an operation whose engines are not installed. */
const NOT_INSTALLED_RETRY_SECONDS = 3600;

/** Every engine the job needs runs here: else 503 unavailable, for an hour. */
export function requireOffered(
  title: string,
  needed: readonly JobKind[],
  offered: ReadonlySet<JobKind>,
): void {
  const missing = needed.filter((kind) => !offered.has(kind));
  if (missing.length === 0) return;
  throw new ApiError(
    "unavailable",
    `${title} is not available on this server yet.`,
    `The engines of ${missing.join(", ")} are not installed; retry later.`,
    { retryAfterSeconds: NOT_INSTALLED_RETRY_SECONDS },
  );
}

/**
 * Back-pressure, told in time: a queue whose waiting jobs would take too long to run refuses everyone
 * (503); an account whose own waiting jobs would, gets 429 for its next ones while others go on.
 */
export async function refuseOverBacklog(
  backlog: Pick<BacklogEstimator, "check">,
  accountId: string,
  kind: JobKind,
  title: string,
): Promise<void> {
  const found = await backlog.check(accountId, kind);
  if (found.over === false) return;
  const wait = durationInWords(found.retryAfterSeconds);
  const waiting = durationInWords(Math.ceil(found.seconds));
  const retry = { retryAfterSeconds: found.retryAfterSeconds };
  if (found.over === "queue") {
    throw new ApiError(
      "unavailable",
      `The ${title} queue is full.`,
      `The jobs waiting would take about ${waiting} to run; retry in ${wait}.`,
      retry,
    );
  }
  throw new ApiError(
    "rate_limited",
    `Your ${title} jobs already waiting would take about ${waiting} to run.`,
    `Send more as they finish: retry in ${wait} (the Retry-After header).`,
    retry,
  );
}
