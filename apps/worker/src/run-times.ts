import { type JobKind, laneOf } from "@octavo/contracts";

/** Until a queue has run jobs here, a lane's run time is taken to be this. */
const FIRST_GUESS_MS = { light: 1_000, heavy: 10_000 } as const;
/** Weight of the newest run in the moving average. */
const NEWEST_WEIGHT = 0.2;
/** A job waiting its account's turn is looked at again no sooner than this, and no later. */
const TURN_DELAY_MS = { least: 250, most: 5_000 } as const;

/**
 * How long this worker's jobs of each queue take (an exponentially weighted moving average), to know how
 * long a job whose account is at its cap should wait before it is looked at again: about as long as the
 * account's jobs ahead of it take, so it is neither polled over and over nor left waiting past its turn.
 */
export class RunTimes {
  private readonly averageMs = new Map<JobKind, number>();

  record(queue: JobKind, ms: number): void {
    const average = this.averageMs.get(queue);
    this.averageMs.set(queue, average === undefined ? ms : average + NEWEST_WEIGHT * (ms - average));
  }

  /** `place`: the job's place in its queue (its BullMQ priority); `cap`: the jobs its account may run at once. */
  turnDelayMs(queue: JobKind, place: number, cap: number): number {
    const runMs = this.averageMs.get(queue) ?? FIRST_GUESS_MS[laneOf(queue)];
    const rounds = Math.ceil(Math.max(1, place) / Math.max(1, cap));
    return Math.min(TURN_DELAY_MS.most, Math.max(TURN_DELAY_MS.least, rounds * runMs));
  }
}
