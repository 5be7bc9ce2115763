/**
 * Notices a queue consumer that has stopped taking jobs. BullMQ relies on ioredis to reconnect, and a
 * worker has been seen to come back from Redis going away (the chaos run, seed 1: cut from the
 * network for 30 s, then Redis killed) connected and "running", yet never asking for a job again,
 * while its queue filled. Its process then needs replacing, which only its supervisor can do.
 *
 * A queue is stuck when this process runs none of its jobs while some wait in it, over a whole window:
 * an idle consumer with jobs waiting takes one within BullMQ's block timeout (5 s), so a minute of that
 * is no scheduling delay. A busy consumer is never stuck (its slots may be full); jobs delayed for their
 * turn do not wait. When Redis cannot be asked, nothing is concluded.
 */
export interface WatchedQueues {
  queues: readonly string[];
  /** Jobs of the queue waiting to be taken, from Redis. */
  waiting(queue: string): Promise<number>;
  /** Jobs of the queue this process holds now. */
  running(queue: string): number;
}

export const STUCK_AFTER_MS = 60_000;

export class ConsumerWatchdog {
  /** Since when each queue has had jobs waiting and none running here. */
  private readonly idleSince = new Map<string, number>();

  constructor(
    private readonly watched: WatchedQueues,
    private readonly stuckAfterMs = STUCK_AFTER_MS,
  ) {}

  /** A job of the queue was taken: it is not stuck. */
  took(queue: string): void {
    this.idleSince.delete(queue);
  }

  /** One look at every queue; the ones stuck for the whole window. */
  async check(now: number): Promise<string[]> {
    const stuck: string[] = [];
    for (const queue of this.watched.queues) {
      const waiting = await this.watched.waiting(queue).catch(() => undefined);
      if (waiting === undefined || waiting === 0 || this.watched.running(queue) > 0) {
        this.idleSince.delete(queue);
        continue;
      }
      const since = this.idleSince.get(queue) ?? now;
      this.idleSince.set(queue, since);
      if (now - since >= this.stuckAfterMs) stuck.push(queue);
    }
    return stuck;
  }
}
