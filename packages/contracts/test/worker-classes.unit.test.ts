import { describe, expect, it } from "vitest";
import { catalogue } from "../src/catalogue.js";
import { jobKinds } from "../src/operation-ids.js";
import { queuesOfClass, WEBHOOK_QUEUE, workerClasses, workerClassOf } from "../src/worker-classes.js";

describe("worker classes, from the catalogue", () => {
  it("give every job kind and the webhook deliveries exactly one class", () => {
    const taken = workerClasses.flatMap((name) => queuesOfClass(name).map((queue) => queue.name));
    expect([...taken].sort()).toEqual([...jobKinds, WEBHOOK_QUEUE].sort());
    expect(new Set(taken).size).toBe(taken.length);
    for (const name of workerClasses)
      for (const queue of queuesOfClass(name)) expect(workerClassOf(queue.name), queue.name).toBe(name);
  });

  it("take each operation's class and count from its catalogue entry", () => {
    expect(queuesOfClass("heavy")).toContainEqual({ name: "ocr", concurrency: 1 });
    expect(queuesOfClass("heavy")).toContainEqual({ name: "compress" });
    expect(queuesOfClass("office").map((queue) => queue.name)).toEqual([
      "word-to-pdf",
      "powerpoint-to-pdf",
      "excel-to-pdf",
      "html-to-pdf",
      "generate",
    ]);
    expect(queuesOfClass("webhooks")).toEqual([{ name: "webhooks", concurrency: 20 }]);
    expect(queuesOfClass("pipeline")).toEqual([{ name: "pipeline" }]);
    // Resident engines run only where the office class's image has them.
    for (const [id, entry] of Object.entries(catalogue))
      if (entry.runner.runner === "resident") expect(entry.workerClass, id).toBe("office");
  });

  it("leave a queue of no class (housekeeping) without one", () => {
    expect(workerClassOf("maintenance")).toBeUndefined();
  });
});
