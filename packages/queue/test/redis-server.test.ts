import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createRedis, pingRedis, startRedisServer } from "../src/index.js";

const quiet = { info: () => undefined, error: () => undefined };

function serverPid(socketDir: string): number {
  // redis-server writes no pidfile here (daemonize no); find it by its socket argument.
  const out = execFileSync("pgrep", ["-f", `redis-server.*${socketDir}`], { encoding: "utf8" });
  return Number(out.trim().split("\n")[0]);
}

describe("the supervised redis-server", () => {
  it("starts on a socket in the data dir, persists to an append-only file, and is restarted after a crash", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "octavo-redis-"));
    const redis = await startRedisServer({ dataDir, logger: quiet });
    try {
      expect(redis.url).toBe(`unix://${join(dataDir, "redis", "redis.sock")}`);
      const client = createRedis(redis.url, "worker");
      await client.set("queued-job", "kept");
      client.disconnect();

      // A second octavo process on the same data dir reuses the running server.
      const again = await startRedisServer({ dataDir, logger: quiet });
      expect(again.url).toBe(redis.url);
      await again.close();
      expect(await pingRedis(redis.url)).toBe(true);

      process.kill(serverPid(join(dataDir, "redis")), "SIGKILL");
      const deadline = Date.now() + 15_000;
      await delay(100); // let the supervisor see the exit before polling
      while (!(await pingRedis(redis.url, 200)) && Date.now() < deadline) await delay(50);
      const after = createRedis(redis.url, "worker");
      // appendfsync everysec: a write a moment old survives even a SIGKILL of the server.
      expect(await after.get("queued-job")).toBe("kept");
      after.disconnect();
    } finally {
      await redis.close();
    }
    expect(await pingRedis(redis.url, 200)).toBe(false);
  });
});
