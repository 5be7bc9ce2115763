import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { afterEach, describe, expect, it } from "vitest";
// The built module: a sandbox process runs dist/sandbox/child.js, which the sources do not hold.
import type { EngineTask } from "../dist/sandbox/protocol.js";
import { Sandboxes } from "../dist/sandbox/sandboxes.js";

/*
 * Real sandbox processes running Read form (a process kept for one account) and Rotate (one any job may
 * take): which job takes which process, and how long one kept for an account waits.
 */
const form = corpusPath("general/samplefiles_libreoffice-form.pdf");
const open: Sandboxes[] = [];
const dirs: Awaited<ReturnType<typeof createTempDir>>[] = [];
afterEach(async () => {
  for (const sandboxes of open.splice(0)) sandboxes.close();
  await Promise.all(dirs.splice(0).map((dir) => dir.dispose()));
});

function sandboxesWith(accountIdleMs: number): Sandboxes {
  const sandboxes = new Sandboxes({
    maxHeapMb: 512,
    maxJobsPerProcess: 100,
    maxResidentBytes: 1024 ** 3,
    maxIdle: 4,
    accountIdleMs,
    urlAllowlist: "",
  });
  open.push(sandboxes);
  return sandboxes;
}

async function task(operation: "forms-read" | "rotate"): Promise<EngineTask> {
  const dir = await createTempDir("octavo-sandboxes-");
  dirs.push(dir);
  const workDir = join(dir.path, "out");
  await mkdir(workDir);
  const options = operation === "rotate" ? { angle: 90 } : {};
  return { operation, options, inputs: [{ path: form, name: "form.pdf" }], workDir } as EngineTask;
}

const running = { timeoutMs: 60_000, onProgress: () => undefined };

describe("sandbox processes kept between jobs", () => {
  it("give an account's process to that account's jobs only", async () => {
    const sandboxes = sandboxesWith(60_000);
    expect(
      (await sandboxes.run(await task("forms-read"), { ...running, reuse: "account", account: "a" })).type,
    ).toBe("done");
    const startedAfterFirst = sandboxes.started;
    // Account a's next job takes its process; account b's a new one.
    expect(
      (await sandboxes.run(await task("forms-read"), { ...running, reuse: "account", account: "a" })).type,
    ).toBe("done");
    expect(sandboxes.started).toBe(startedAfterFirst);
    await sandboxes.run(await task("forms-read"), { ...running, reuse: "account", account: "b" });
    expect(sandboxes.started).toBe(startedAfterFirst + 1);
    // A job any process may take does not take one kept for another account: b's rotate takes b's.
    await sandboxes.run(await task("rotate"), { ...running, reuse: "shared", account: "b" });
    expect(sandboxes.started).toBe(startedAfterFirst + 1);
  });

  it("end a process kept for an account once it has waited its time, and keep a clean one", async () => {
    const sandboxes = sandboxesWith(300);
    await sandboxes.run(await task("forms-read"), { ...running, reuse: "account", account: "b" });
    // a's rotate cannot take b's process: it takes the spare, which then waits clean.
    await sandboxes.run(await task("rotate"), { ...running, reuse: "shared", account: "a" });
    // Waiting: b's process, the clean one, and the new spare.
    expect(sandboxes.waiting).toBe(3);
    await waitFor("b's process to end", () => (sandboxes.waiting === 2 ? true : undefined));
    // The clean one, which has waited as long, is still there: c's rotate takes it, and nothing starts.
    const started = sandboxes.started;
    await sandboxes.run(await task("rotate"), { ...running, reuse: "shared", account: "c" });
    expect(sandboxes.started).toBe(started);
    expect(sandboxes.waiting).toBe(2);
  });
});
