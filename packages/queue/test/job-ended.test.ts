import { randomBytes } from "node:crypto";
import { waitFor } from "@octavo/testing";
import { Queue, Worker } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import {
  createRedis,
  deliveryIdOf,
  JobEndedListener,
  JobProducer,
  publishJobEnd,
  WEBHOOK_QUEUE,
  waitUntilReady,
} from "../src/index.js";

// The machine's Redis, as CI starts it; a fresh prefix keeps runs apart.
const url = "redis://127.0.0.1:6379";
const prefix = `test-ended-${randomBytes(4).toString("hex")}`;

describe("job-ended notices", () => {
  const publisher = createRedis(url, "producer");
  const producer = new JobProducer(publisher, prefix);
  const listener = new JobEndedListener(createRedis(url, "worker"), prefix);
  afterAll(async () => {
    listener.close();
    await producer.close();
    publisher.disconnect();
  });

  it("wakes the wait on a job when a worker says it ended, and only that job's", async () => {
    await waitUntilReady(publisher);
    await listener.subscribed;
    const started = Date.now();
    const heard = listener.wait("job-a", 10_000);
    const other = listener.wait("job-b", 400).then(() => Date.now() - started);
    await producer.announceEnded("job-a");
    await heard;
    expect(Date.now() - started).toBeLessThan(5_000);
    // job-b heard nothing: it waits out its own time.
    expect(await other).toBeGreaterThanOrEqual(390);
  });

  it("gives up after the time asked when nothing is said", async () => {
    const started = Date.now();
    await listener.wait("never", 150);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("publishes a job's end: its webhook delivery queued, its watchers told, nothing failed", async () => {
    await listener.subscribed;
    let heard = 0;
    const unwatch = listener.watch("job-c", () => {
      heard += 1;
    });
    expect(await publishJobEnd(producer, "job-c", "delivery-c")).toEqual([]);
    expect(await publishJobEnd(producer, "job-c", undefined)).toEqual([]);
    expect((await producer.depth(WEBHOOK_QUEUE)).waiting).toBe(1);
    // The message names the delivery by its own name, and BullMQ's job id is the delivery's id.
    const webhooks = new Queue(WEBHOOK_QUEUE, { connection: publisher, prefix });
    const queued = await webhooks.getJob("delivery-c");
    await webhooks.close();
    expect(queued?.data).toEqual({ deliveryId: "delivery-c" });
    expect(deliveryIdOf(queued?.data)).toBe("delivery-c");
    // A message queued by the version before the rename still names its delivery.
    expect(deliveryIdOf({ jobId: "delivery-old" })).toBe("delivery-old");
    await waitFor("both notices of job-c", () => (heard >= 2 ? true : undefined), 5_000);
    expect(heard).toBe(2);
    // Unwatched, it hears no more.
    unwatch();
    await publishJobEnd(producer, "job-c", undefined);
    await listener.wait("job-c", 200);
    expect(heard).toBe(2);
  });

  // Found by the chaos run (npm run test:chaos, seed 1): jobs stayed queued for good after a worker ran
  // out of attempts without reaching the database. BullMQ kept their messages as failed, and the
  // janitor's enqueue under the same id was a no-op. Queued again, a retained copy is replaced.
  it("queues a job again when BullMQ retains its message as finished, and leaves a waiting one alone", async () => {
    const queue = new Queue("rotate", { connection: publisher, prefix });
    try {
      await producer.enqueueJob("rotate", { jobId: "job-r" }, 1);
      // Taken and completed by a worker whose settle never reached the database.
      const connection = createRedis(url, "worker");
      const worker = new Worker("rotate", async () => "gone", { connection, prefix });
      await waitFor("the worker to complete job-r", async () =>
        (await queue.getJobState("job-r")) === "completed" ? true : undefined,
      );
      await worker.close();
      connection.disconnect();
      expect(await queue.getJobState("job-r")).toBe("completed");
      await producer.enqueueJob("rotate", { jobId: "job-r" }, 1);
      expect(await queue.getJobState("job-r"), "a plain enqueue is a no-op").toBe("completed");
      await producer.enqueueJobAgain("rotate", { jobId: "job-r" }, 1);
      expect(await queue.getJobState("job-r")).toBe("prioritized");
      // Waiting already: queued again, it is the same single message.
      await producer.enqueueJobAgain("rotate", { jobId: "job-r" }, 1);
      expect(await queue.getJobCounts("prioritized")).toEqual({ prioritized: 1 });
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
