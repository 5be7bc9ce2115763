import { OutboundError } from "./errors.js";

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts. The abandoned
 * promise keeps running (the browser's until its context is closed); its later rejection goes to
 * `onLate` when given, and never becomes an unhandled rejection.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onLate: (error: unknown) => void = () => undefined,
): Promise<T> {
  if (!signal) return promise;
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

/** One time budget for a whole outbound call (DNS, connect, redirects and body), plus the caller's signal. */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly timedOut: () => boolean;
  readonly clear: () => void;
}

export function startDeadline(timeoutMs: number, what: string, caller: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new OutboundError("unreachable_url", `${what} within ${timeoutMs} ms (timed out)`)),
    timeoutMs,
  );
  return {
    signal: caller ? AbortSignal.any([controller.signal, caller]) : controller.signal,
    timedOut: () => controller.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}
