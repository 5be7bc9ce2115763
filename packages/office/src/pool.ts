interface Waiter<T> {
  resolve: (item: T) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

/** A fixed set of items handed out one caller at a time, first come first served. */
export class Pool<T> {
  private readonly idle: T[];
  private readonly waiters: Waiter<T>[] = [];
  private closedReason: unknown;
  private closed = false;

  constructor(items: readonly T[]) {
    this.idle = [...items];
  }

  /** Resolves with a free item; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(this.closedReason);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.idle.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T> = {
        resolve,
        reject,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(item: T): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) {
      this.idle.push(item);
      return;
    }
    waiter.detach();
    waiter.resolve(item);
  }

  /** Callers still waiting are rejected with `reason`, and so is every later acquire. */
  close(reason: unknown): void {
    this.closed = true;
    this.closedReason = reason;
    for (const waiter of this.waiters.splice(0)) {
      waiter.detach();
      waiter.reject(reason);
    }
  }
}
