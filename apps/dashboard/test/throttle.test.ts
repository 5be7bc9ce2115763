import { randomBytes } from "node:crypto";
import { sharedRedisUrl } from "@octavo/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { SignInThrottle } from "../src/throttle.js";

describe("sign-in throttling (the machine's Redis)", () => {
  const redis = new Redis(sharedRedisUrl());
  const throttle = new SignInThrottle(redis, `test-throttle-${randomBytes(4).toString("hex")}`);
  afterAll(() => redis.quit());

  it("blocks an email and address after 5 failures, for about 15 minutes", async () => {
    for (let failure = 0; failure < 5; failure += 1) {
      expect(await throttle.blockedFor("Ada@Example.com", "10.0.0.1")).toBe(0);
      await throttle.recordFailure("ada@example.com", "10.0.0.1");
    }
    const wait = await throttle.blockedFor("ada@example.com ", "10.0.0.1");
    expect(wait).toBeGreaterThan(14 * 60);
    expect(wait).toBeLessThanOrEqual(15 * 60);
    // Another address is not blocked by this pair.
    expect(await throttle.blockedFor("ada@example.com", "10.0.0.2")).toBe(0);
  });

  it("blocks an email guessed from many addresses after 20 failures", async () => {
    for (let failure = 0; failure < 20; failure += 1)
      await throttle.recordFailure("bob@example.com", `10.1.0.${failure}`);
    expect(await throttle.blockedFor("bob@example.com", "10.2.0.1")).toBeGreaterThan(0);
  });

  it("forgets a pair's failures after a success", async () => {
    for (let failure = 0; failure < 4; failure += 1)
      await throttle.recordFailure("eve@example.com", "10.3.0.1");
    await throttle.recordSuccess("eve@example.com", "10.3.0.1");
    await throttle.recordFailure("eve@example.com", "10.3.0.1");
    expect(await throttle.blockedFor("eve@example.com", "10.3.0.1")).toBe(0);
  });
});
