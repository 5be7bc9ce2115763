import { describe, expect, it } from "vitest";
import { resolveQueues } from "../src/commands/serve.js";

describe("octavo worker --queues", () => {
  it("takes every available queue by default, at the process's concurrency", () => {
    const all = resolveQueues(undefined, 2);
    expect(all.map((spec) => spec.name)).toEqual(expect.arrayContaining(["merge", "ocr", "webhooks"]));
    expect(all.every((spec) => spec.concurrency === undefined)).toBe(true);
  });

  it("reads a queue's own concurrency after '='", () => {
    expect(resolveQueues("merge=2, split,webhooks=20", 2)).toEqual([
      { name: "merge", concurrency: 2 },
      { name: "split" },
      { name: "webhooks", concurrency: 20 },
    ]);
  });

  it("says what is wrong with a queue list", () => {
    // A light queue takes up to twice the process's engine slots (its jobs' I/O overlaps), a heavy one as many.
    expect(resolveQueues("merge=4", 2)).toEqual([{ name: "merge", concurrency: 4 }]);
    expect(() => resolveQueues("merge=5", 2)).toThrow(/merge=5: above the 4 jobs this queue may take/);
    expect(() => resolveQueues("ocr=3", 2)).toThrow(/ocr=3: above the 2 jobs .*OCTAVO_WORKER_CONCURRENCY 2/);
    expect(() => resolveQueues("merge=0", 2)).toThrow(/whole number ≥ 1/);
    expect(() => resolveQueues("merge=two", 2)).toThrow(/whole number ≥ 1/);
    expect(() => resolveQueues("merge,mergee", 2)).toThrow(
      /unknown or unavailable queue mergee; available: merge,/,
    );
  });
});
