import { ApiError } from "@octavo/contracts";
import { describe, expect, it } from "vitest";
import { refuseOverBacklog, requireOffered, requireWebhooksInPlan } from "../src/admission.js";

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("nothing was refused");
}

describe("the service's rules for taking a job", () => {
  it("keeps webhooks to paid plans", () => {
    expect(() => requireWebhooksInPlan("starter")).not.toThrow();
    expect(refusal(() => requireWebhooksInPlan("free"))).toMatchObject({
      code: "webhooks_not_in_plan",
      status: 403,
    });
  });

  it("refuses a job whose engines this server lacks, for an hour, naming them", () => {
    const offered = new Set(["merge", "split"] as const);
    expect(() => requireOffered("Merge PDF", ["merge"], offered)).not.toThrow();
    expect(refusal(() => requireOffered("Pipeline", ["merge", "ocr", "pipeline"], offered))).toMatchObject({
      code: "unavailable",
      status: 503,
      detail: "The engines of ocr, pipeline are not installed; retry later.",
      retryAfterSeconds: 3600,
    });
  });

  it("tells the account (429) or everyone (503) when to come back, by the backlog", async () => {
    const over = (kind: false | "account" | "queue") => ({
      check: async () =>
        kind === false ? { over: false as const } : { over: kind, seconds: 400, retryAfterSeconds: 30 },
    });
    await expect(refuseOverBacklog(over(false), "a", "ocr", "OCR PDF")).resolves.toBeUndefined();
    await expect(refuseOverBacklog(over("account"), "a", "ocr", "OCR PDF")).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 30,
      message: expect.stringMatching(/^Your OCR PDF jobs already waiting would take about \d.* to run\.$/),
    });
    await expect(refuseOverBacklog(over("queue"), "a", "ocr", "OCR PDF")).rejects.toMatchObject({
      code: "unavailable",
      retryAfterSeconds: 30,
      message: "The OCR PDF queue is full.",
    });
  });
});
