import { ApiError, durationInWords, type PlanId, plans, testModeLimits } from "@octavo/contracts";
import type { RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Requests per account per minute, counted in Redis so the limit holds across every API node.
 * One limiter per plan, because the plan sets the number of points; and test mode's jobs a minute.
 */
export class PlanRateLimiter {
  private readonly limiters = new Map<PlanId, RateLimiterRedis>();
  private readonly testJobs: RateLimiterRedis;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    this.testJobs = new RateLimiterRedis({
      storeClient: redis,
      points: testModeLimits.jobsPerMinute,
      duration: 60,
      keyPrefix: `${keyPrefix}:rate:test-jobs`,
    });
  }

  private limiterFor(plan: PlanId): RateLimiterRedis {
    let limiter = this.limiters.get(plan);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        points: plans[plan].requestsPerMinute,
        duration: 60,
        // The plan is part of the key, so a plan change starts a fresh window at the new size.
        keyPrefix: `${this.keyPrefix}:rate:${plan}`,
      });
      this.limiters.set(plan, limiter);
    }
    return limiter;
  }

  /** Throws on a Redis failure: the caller answers 503, since nothing can be queued without Redis either. */
  consume(accountId: string, plan: PlanId): Promise<RateDecision> {
    return decide(this.limiterFor(plan), accountId, plans[plan].requestsPerMinute);
  }

  /** One job of the account's test keys (their requests count against the plan's limit as well). */
  consumeTestJob(accountId: string): Promise<RateDecision> {
    return decide(this.testJobs, accountId, testModeLimits.jobsPerMinute);
  }
}

async function decide(limiter: RateLimiterRedis, key: string, limit: number): Promise<RateDecision> {
  try {
    const result = await limiter.consume(key, 1);
    return {
      allowed: true,
      limit,
      remaining: result.remainingPoints,
      resetSeconds: Math.ceil(result.msBeforeNext / 1000),
    };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
      };
    }
    throw rejection;
  }
}

/** The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): the policy and what is left of it. */
function setRateHeaders(res: Response, decision: RateDecision): void {
  res.setHeader("RateLimit-Policy", `"per-minute";q=${decision.limit};w=60`);
  res.setHeader("RateLimit", `"per-minute";r=${decision.remaining};t=${decision.resetSeconds}`);
}

export function rateLimit(limiter: PlanRateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const { accountId, plan } = res.locals as { accountId: string; plan: PlanId };
    const decision = await decided(res, limiter.consume(accountId, plan));
    setRateHeaders(res, decision);
    if (!decision.allowed) refuse(res, decision, `Your plan allows ${decision.limit} requests per minute.`);
    next();
  };
}

/** A job of a test key: at most test mode's jobs a minute per account, else 429 with Retry-After. */
export async function limitTestJobs(
  limiter: PlanRateLimiter,
  res: Response,
  accountId: string,
): Promise<void> {
  const decision = await decided(res, limiter.consumeTestJob(accountId));
  if (!decision.allowed)
    refuse(res, decision, `Test mode allows ${decision.limit} jobs a minute per account.`);
}

/** The decision, or 503 when Redis cannot count. */
async function decided(res: Response, deciding: Promise<RateDecision>): Promise<RateDecision> {
  try {
    return await deciding;
  } catch {
    res.setHeader("Retry-After", "5");
    throw new ApiError(
      "unavailable",
      "The service cannot take requests right now.",
      "Its queue store is unreachable; retry in a few seconds.",
    );
  }
}

function refuse(res: Response, decision: RateDecision, message: string): never {
  res.setHeader("Retry-After", String(decision.resetSeconds));
  throw new ApiError(
    "rate_limited",
    message,
    `Wait ${durationInWords(decision.resetSeconds)} (the Retry-After header) before the next request.`,
  );
}
