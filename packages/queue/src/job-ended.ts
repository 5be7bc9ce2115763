import type { Redis } from "ioredis";

/** The pub/sub channel on which workers say which jobs they ended. */
function channelOf(prefix: string): string {
  return `${prefix}:jobs:ended`;
}

/**
 * A worker says a job ended (Redis pub/sub), so that API nodes holding a long poll on it (GET
 * /v1/jobs/{id}?wait=) answer at once instead of at their next database read. Best effort: a lost
 * notice only delays the answer to that next read.
 */
export async function announceJobEnded(publisher: Redis, prefix: string, jobId: string): Promise<void> {
  await publisher.publish(channelOf(prefix), jobId);
}

/**
 * The listening side: one subscribed connection. API nodes wait on it for the ends of the jobs their
 * long polls hold; workers watch the jobs they run, to stop the engines of one that ended elsewhere
 * (canceled, or failed by the janitor's deadline).
 */
export class JobEndedListener {
  private readonly waiting = new Map<string, Set<() => void>>();
  /** Resolves once Redis has confirmed the subscription: notices published after it are heard. */
  readonly subscribed: Promise<void>;

  /** `subscriber` becomes a subscriber connection: it must be used for nothing else. */
  constructor(
    private readonly subscriber: Redis,
    prefix: string,
  ) {
    const channel = channelOf(prefix);
    subscriber.on("message", (from: string, jobId: string) => {
      if (from !== channel) return;
      for (const wake of this.waiting.get(jobId) ?? []) wake();
    });
    // ioredis subscribes again by itself after a reconnect.
    this.subscribed = subscriber.subscribe(channel).then(() => undefined);
    this.subscribed.catch(() => undefined); // until then, the fallback reads answer the long polls
  }

  /** Resolves when the job is said to have ended, or after `ms`, whichever comes first. */
  wait(jobId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const unwatch = this.watch(jobId, () => {
        clearTimeout(timer);
        unwatch();
        resolve();
      });
      const timer = setTimeout(() => {
        unwatch();
        resolve();
      }, ms);
      // A wait nobody awaits any more (its job was seen ended another way) must not hold the process.
      timer.unref();
    });
  }

  /** Calls `onEnded` each time the job is said to have ended, until the returned function is called. */
  watch(jobId: string, onEnded: () => void): () => void {
    const wakers = this.waiting.get(jobId) ?? new Set<() => void>();
    this.waiting.set(jobId, wakers);
    const waker = () => onEnded();
    wakers.add(waker);
    return () => {
      wakers.delete(waker);
      if (wakers.size === 0) this.waiting.delete(jobId);
    };
  }

  close(): void {
    this.subscriber.disconnect();
  }
}
