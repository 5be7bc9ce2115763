import { setTimeout as delay } from "node:timers/promises";

/**
 * Polls `probe` until it returns a value other than undefined, and returns that value; throws naming
 * `what` once `timeoutMs` has passed. Tests wait on a condition with a deadline, never a fixed sleep.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(intervalMs);
  }
}
