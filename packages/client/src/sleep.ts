/**
 * Resolves after `ms`, or rejects with the signal's reason when it aborts first. The client's own
 * waits (a retry's backoff, Retry-After, the rate-limit window) are timed by design; node:timers'
 * promise form is not used because the core runs without Node.js.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
