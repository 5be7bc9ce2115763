import { sleep } from "./sleep.js";

/** What the last answer's IETF RateLimit headers said of this account's per-minute budget. */
export interface RateLimitState {
  /** Requests allowed per window (RateLimit-Policy q). */
  limit: number;
  /** Requests left in this window (RateLimit r). */
  remaining: number;
  /** When the window resets, in epoch milliseconds (RateLimit t). */
  resetAt: number;
}

function parameter(header: string | null, name: string): number | undefined {
  const match = header?.match(new RegExp(`(?:^|;)\\s*${name}=(\\d+)`));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * Tracks the account's budget from every answer and, when asked to, holds a request back until the
 * window resets once none are left, so a batch spreads itself over the minute instead of collecting
 * 429s. Requests sent concurrently each take one from the budget before they go.
 */
export class RateLimitGate {
  state: RateLimitState | undefined;

  constructor(private readonly enabled: boolean) {}

  async take(signal: AbortSignal | undefined): Promise<void> {
    if (!this.enabled) return;
    for (;;) {
      const state = this.state;
      if (state === undefined) return;
      const wait = state.resetAt - Date.now();
      if (state.remaining > 0 || wait <= 0) {
        if (wait <= 0) this.state = undefined;
        else state.remaining -= 1;
        return;
      }
      await sleep(wait, signal);
    }
  }

  update(headers: Headers): void {
    const rateLimit = headers.get("ratelimit");
    const remaining = parameter(rateLimit, "r");
    const reset = parameter(rateLimit, "t");
    const limit = parameter(headers.get("ratelimit-policy"), "q");
    if (remaining === undefined || reset === undefined) return;
    this.state = {
      limit: limit ?? this.state?.limit ?? remaining,
      remaining,
      resetAt: Date.now() + reset * 1000,
    };
  }

  /** A 429: nothing left until Retry-After. */
  exhausted(retryAfterSeconds: number): void {
    const limit = this.state?.limit ?? 0;
    this.state = { limit, remaining: 0, resetAt: Date.now() + retryAfterSeconds * 1000 };
  }
}
