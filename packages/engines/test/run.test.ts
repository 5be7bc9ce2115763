import { readFile, stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { run } from "../src/index.js";
import { context } from "./helpers.js";

/** Running or sleeping; a zombie (killed, waiting for its new parent to reap it) counts as dead. */
async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits (with a deadline) for the kernel to finish delivering the kill. */
async function diesWithin(pid: number, timeoutMs = 2_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await alive(pid)) {
    if (Date.now() > deadline) return false;
    await delay(20);
  }
  return true;
}

describe("run()", () => {
  it("kills the whole process group on timeout", async () => {
    const started = Date.now();
    const result = await run("sh", ["-c", "sleep 30 & echo $!; sleep 30"], { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(5_000);
    const background = Number(result.stdout.trim());
    expect(background).toBeGreaterThan(0);
    expect(await diesWithin(background)).toBe(true);
  });

  it("reports a program stopped by its CPU-time limit as timed out", async () => {
    // A busy loop reaches its 1 CPU-second limit long before the 20 s timeout.
    const result = await run("sh", ["-c", "while :; do :; done"], { timeoutMs: 20_000, cpuSeconds: 1 });
    expect(result.signal).toBe("SIGXCPU");
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(15_000);
  });

  it("kills the process group when the signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await run("sh", ["-c", "sleep 30 & echo $!; sleep 30"], { signal: controller.signal });
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(await diesWithin(Number(result.stdout.trim()))).toBe(true);
  });

  it("enforces the memory limit", async () => {
    // The shell keeps 200 MB of "x" in one variable, more than a 64 MiB address space holds.
    const hog = ["-c", `v=$(head -c 200000000 /dev/zero | tr "\\0" x); echo \${#v}`];
    const limited = await run("sh", hog, { memoryBytes: 64 * 1024 * 1024 });
    expect(limited.exitCode === 0 && limited.signal === null).toBe(false);
    expect(limited.stdout.trim()).not.toBe("200000000");
    const roomy = await run("sh", hog, { memoryBytes: 1024 ** 3 });
    expect(roomy.exitCode).toBe(0);
    expect(roomy.stdout.trim()).toBe("200000000");
  });

  it("caps captured output", async () => {
    const result = await run("sh", ["-c", "head -c 1000000 /dev/zero | tr '\\0' a"], {
      maxOutputBytes: 1000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith("a".repeat(1000))).toBe(true);
    expect(result.stdout).toContain("999000 more bytes dropped");
  });

  it("passes secrets as 0600 files, never on the command line, and removes them", async () => {
    const { workDir } = await context();
    const secret = "p@ss word\u00e6";
    const result = await run("sh", ["-c", 'echo "$0"; stat -c %a "$0"; cat "$0"', "{{password}}"], {
      secrets: { dir: workDir, files: { password: secret } },
    });
    const [path = "", mode, content] = result.stdout.split("\n");
    expect(path.startsWith(workDir)).toBe(true);
    expect(path).not.toContain(secret);
    expect(mode).toBe("600");
    expect(content).toBe(secret);
    await expect(stat(path)).rejects.toThrow();
    await expect(readFile(path)).rejects.toThrow();
  });

  it("reports a program that does not exist as a failed run", async () => {
    const result = await run("octavo-no-such-program", []);
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain("octavo-no-such-program");
  });
});
