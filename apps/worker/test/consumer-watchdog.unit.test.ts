import { describe, expect, it } from "vitest";
import { ConsumerWatchdog } from "../src/consumer-watchdog.js";

/** Queues whose waiting and running counts the test sets; `down` makes Redis unanswerable. */
function queues() {
  const waiting = new Map<string, number>();
  const running = new Map<string, number>();
  const state = { down: false };
  return {
    waiting,
    running,
    state,
    watched: {
      queues: ["ocr", "rotate"],
      waiting: async (queue: string) => {
        if (state.down) throw new Error("Redis is down");
        return waiting.get(queue) ?? 0;
      },
      running: (queue: string) => running.get(queue) ?? 0,
    },
  };
}

describe("the consumer watchdog", () => {
  it("calls a queue stuck once jobs have waited a whole minute with none running here", async () => {
    const { waiting, watched } = queues();
    const watchdog = new ConsumerWatchdog(watched, 60_000);
    waiting.set("ocr", 3);
    expect(await watchdog.check(0)).toEqual([]);
    expect(await watchdog.check(59_999)).toEqual([]);
    expect(await watchdog.check(60_000)).toEqual(["ocr"]);
  });

  it("does not when the consumer took a job, is busy, or the queue emptied meanwhile", async () => {
    const { waiting, running, watched } = queues();
    const watchdog = new ConsumerWatchdog(watched, 60_000);
    waiting.set("ocr", 3);
    await watchdog.check(0);
    watchdog.took("ocr");
    expect(await watchdog.check(60_000)).toEqual([]);
    // Busy: its slots may be full while jobs wait.
    running.set("ocr", 1);
    expect(await watchdog.check(200_000)).toEqual([]);
    running.set("ocr", 0);
    expect(await watchdog.check(210_000)).toEqual([]);
    waiting.set("ocr", 0);
    expect(await watchdog.check(250_000)).toEqual([]);
    waiting.set("ocr", 1);
    expect(await watchdog.check(260_000)).toEqual([]);
    expect(await watchdog.check(320_000)).toEqual(["ocr"]);
  });

  it("concludes nothing while Redis cannot be asked, and starts the window again after", async () => {
    const { waiting, state, watched } = queues();
    const watchdog = new ConsumerWatchdog(watched, 60_000);
    waiting.set("rotate", 5);
    await watchdog.check(0);
    state.down = true;
    expect(await watchdog.check(70_000)).toEqual([]);
    state.down = false;
    expect(await watchdog.check(80_000)).toEqual([]);
    expect(await watchdog.check(140_000)).toEqual(["rotate"]);
  });
});
