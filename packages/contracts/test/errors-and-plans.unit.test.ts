import { describe, expect, it } from "vitest";
import {
  ApiError,
  apiErrors,
  bytesPerMB,
  jobErrorCodes,
  jobErrors,
  parsePageRanges,
  plans,
} from "../src/index.js";

describe("API errors", () => {
  it("maps each code to the spec's status", () => {
    const statuses = Object.fromEntries(
      Object.entries(apiErrors).map(([code, entry]) => [code, entry.status]),
    );
    expect(statuses).toEqual({
      invalid_input: 400,
      invalid_options: 400,
      blocked_url: 400,
      unreachable_url: 400,
      invalid_request: 400,
      missing_api_key: 401,
      invalid_api_key: 401,
      quota_exceeded: 402,
      webhooks_not_in_plan: 403,
      invalid_link: 403,
      link_expired: 403,
      not_found: 404,
      method_not_allowed: 405,
      idempotency_conflict: 409,
      job_finished: 409,
      job_not_finished: 409,
      result_expired: 410,
      too_large: 413,
      rate_limited: 429,
      internal_error: 500,
      unavailable: 503,
    });
  });

  it("takes the status from the table", () => {
    const error = new ApiError(
      "invalid_options",
      "An option is not valid.",
      "angle: must be one of 90, 180, 270",
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "ApiError", code: "invalid_options", status: 400 });
    expect(error.toBody()).toEqual({
      error: "invalid_options",
      message: "An option is not valid.",
      detail: "angle: must be one of 90, 180, 270",
    });
    expect(new ApiError("rate_limited", "Slow down.").detail).toBe("");
    expect(new ApiError("result_expired", "Gone.").status).toBe(410);
  });
});

describe("job errors", () => {
  it("lists the spec's six codes, then octavo's canceled and invalid_options, with their meanings", () => {
    expect(Object.keys(jobErrors)).toEqual([...jobErrorCodes]);
    expect(jobErrorCodes).toEqual([
      "password_required",
      "wrong_password",
      "invalid_input",
      "conversion_failed",
      "no_tables",
      "timeout",
      "canceled",
      "invalid_options",
    ]);
    expect(jobErrors.timeout.description).toContain("5 minutes");
    expect(jobErrors.no_tables.description).toContain("tables mode");
  });
});

describe("plans", () => {
  it("match the spec's Limits table, with octavo's own cap on jobs running at once", () => {
    expect(plans).toEqual({
      free: {
        name: "Free",
        priceUsdPerMonth: 0,
        creditsPerMonth: 100,
        requestsPerMinute: 10,
        maxFileBytes: 10 * 1024 * 1024,
        webhooks: false,
        overageUsdPer1000Credits: null,
        maxRunningJobs: { light: 2, heavy: 1 },
      },
      starter: {
        name: "Starter",
        priceUsdPerMonth: 19,
        creditsPerMonth: 2500,
        requestsPerMinute: 60,
        maxFileBytes: 25 * 1024 * 1024,
        webhooks: true,
        overageUsdPer1000Credits: 10,
        maxRunningJobs: { light: 4, heavy: 2 },
      },
      pro: {
        name: "Pro",
        priceUsdPerMonth: 49,
        creditsPerMonth: 10_000,
        requestsPerMinute: 120,
        maxFileBytes: 50 * 1024 * 1024,
        webhooks: true,
        overageUsdPer1000Credits: 8,
        maxRunningJobs: { light: 8, heavy: 4 },
      },
      business: {
        name: "Business",
        priceUsdPerMonth: 149,
        creditsPerMonth: 50_000,
        requestsPerMinute: 300,
        maxFileBytes: 50 * 1024 * 1024,
        webhooks: true,
        overageUsdPer1000Credits: 5,
        maxRunningJobs: { light: 16, heavy: 8 },
      },
    });
    expect(bytesPerMB).toBe(1_048_576);
  });
});

describe("parsePageRanges", () => {
  it("gives 1-based inclusive ranges", () => {
    expect(parsePageRanges("1-3, 5,7-9")).toEqual({
      ranges: [
        { from: 1, to: 3 },
        { from: 5, to: 5 },
        { from: 7, to: 9 },
      ],
    });
  });

  it("says what is wrong", () => {
    expect(parsePageRanges("5-3")).toEqual({ problem: '"5-3" goes backwards; write it as 3-5' });
    expect(parsePageRanges("99999999999999999999")).toEqual({
      problem: '"99999999999999999999" names a page number that is too large',
    });
  });
});
