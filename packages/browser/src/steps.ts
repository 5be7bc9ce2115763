/**
 * Waits for `promise` unless `signal` aborts first, then rejects with the signal's reason (a
 * JobFailure). The abandoned promise keeps running until the job's browser context is closed, and
 * its later rejection goes to `onLate` instead of becoming an unhandled rejection.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  onLate: (error: unknown) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) onLate(error);
        else reject(error);
      },
    );
  });
}
