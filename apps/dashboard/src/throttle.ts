import type { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";

const FIFTEEN_MINUTES = 15 * 60;

/**
 * Failed sign-ins, counted in Redis so every API node sees them: 5 per email and address in 15
 * minutes (one person mistyping), and 20 per email from anywhere (guessing from many addresses).
 * While either is exhausted, the password is not even checked.
 */
export class SignInThrottle {
  private readonly perEmailAndAddress: RateLimiterRedis;
  private readonly perEmail: RateLimiterRedis;

  constructor(redis: Redis, keyPrefix: string) {
    this.perEmailAndAddress = new RateLimiterRedis({
      storeClient: redis,
      points: 5,
      duration: FIFTEEN_MINUTES,
      keyPrefix: `${keyPrefix}:signin:email-ip`,
    });
    this.perEmail = new RateLimiterRedis({
      storeClient: redis,
      points: 20,
      duration: FIFTEEN_MINUTES,
      keyPrefix: `${keyPrefix}:signin:email`,
    });
  }

  private static keys(email: string, address: string) {
    const normalized = email.trim().toLowerCase();
    return { pair: `${normalized}|${address}`, email: normalized };
  }

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  async blockedFor(email: string, address: string): Promise<number> {
    const keys = SignInThrottle.keys(email, address);
    const [pair, single] = await Promise.all([
      this.perEmailAndAddress.get(keys.pair),
      this.perEmail.get(keys.email),
    ]);
    const waits = [
      pair && pair.remainingPoints <= 0 ? pair.msBeforeNext : 0,
      single && single.remainingPoints <= 0 ? single.msBeforeNext : 0,
    ];
    return Math.ceil(Math.max(...waits) / 1000);
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const keys = SignInThrottle.keys(email, address);
    await Promise.all([this.perEmailAndAddress.penalty(keys.pair, 1), this.perEmail.penalty(keys.email, 1)]);
  }

  async recordSuccess(email: string, address: string): Promise<void> {
    await this.perEmailAndAddress.delete(SignInThrottle.keys(email, address).pair);
  }
}
