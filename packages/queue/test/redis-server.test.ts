import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createRedis, pingRedis, startRedisServer } from "../src/index.js";

const quiet = { info: () => undefined, error: () => undefined };

function serverPids(socketDir: string): number[] {
  // redis-server writes no pidfile here (daemonize no); find it by its title, which names its socket (the
  // lifeline's shell also has the socket in its arguments, but its command line starts with "sh").
  try {
    const out = execFileSync("pgrep", ["-f", `^redis-server.*${socketDir}`], { encoding: "utf8" });
    return out.trim().split("\n").map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

function serverPid(socketDir: string): number {
  const [pid] = serverPids(socketDir);
  if (pid === undefined) throw new Error(`no redis-server on ${socketDir}`);
  return pid;
}

/** The process group of a process (/proc/<pid>/stat, field 5). */
function groupOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[2]);
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

  it("runs in a process group of its own, and does not outlive the service, even one killed with SIGKILL", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "octavo-redis-"));
    const socketDir = join(dataDir, "redis");
    const module = pathToFileURL(join(import.meta.dirname, "..", "dist", "index.js")).href;
    const service = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { startRedisServer } = await import(${JSON.stringify(module)});
         const quiet = { info() {}, error() {} };
         await startRedisServer({ dataDir: ${JSON.stringify(dataDir)}, logger: quiet });
         process.stdout.write("up\\n");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        service.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("up") && resolve());
        service.once("exit", (code) => reject(new Error(`the service exited with ${code}`)));
      });
      const server = serverPid(socketDir);
      // A signal to the service's process group (Ctrl-C in a terminal) does not reach the server.
      expect(groupOf(server)).not.toBe(groupOf(service.pid ?? 0));

      service.kill("SIGKILL");
      const deadline = Date.now() + 10_000;
      while (serverPids(socketDir).length > 0 && Date.now() < deadline) await delay(50);
      expect(serverPids(socketDir)).toEqual([]);
    } finally {
      service.kill("SIGKILL");
    }
  }, 30_000);
});
