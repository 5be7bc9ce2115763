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
    expect(() => resolveQueues("merge=3", 2)).toThrow(/merge=3: above OCTAVO_WORKER_CONCURRENCY \(2\)/);
    expect(() => resolveQueues("merge=0", 2)).toThrow(/whole number ≥ 1/);
    expect(() => resolveQueues("merge=two", 2)).toThrow(/whole number ≥ 1/);
    expect(() => resolveQueues("merge,mergee", 2)).toThrow(
      /unknown or unavailable queue mergee; available: merge,/,
    );
  });
});
