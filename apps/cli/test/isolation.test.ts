import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { corpusPath, createTempDir, descendantsMatching, nestedFormsPdf, waitFor } from "@octavo/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { type Stack, startStack } from "./support/stack.js";

// The isolation the sandboxes give, shown through the real worker with generated hostile files: each
// fails its own job with the right code, and the light job sent beside it still finishes.
const normal = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const form = corpusPath("general/samplefiles_libreoffice-form.pdf");
let files: Awaited<ReturnType<typeof createTempDir>>;
// The worker's temp directory for this file alone, so "nothing left behind" does not see other files' jobs.
let scratch: Awaited<ReturnType<typeof createTempDir>>;
const systemTmp = process.env.TMPDIR;
const hostile = (name: string, bytes: Buffer): string => {
  const path = join(files.path, name);
  writeFileSync(path, bytes);
  return path;
};

// The stack runs in this process: its sandboxes and their tools are this process's descendants, which
// keeps these checks apart from the test files running beside this one.
const sandboxes = () => descendantsMatching(process.pid, "sandbox/child.js");
/** User and system CPU seconds a process has used (/proc/<pid>/stat fields 14 and 15, in ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // gone
  }
}
const toolsLeft = () =>
  ["qpdf", "pdfinfo", "gs"].flatMap((tool) => descendantsMatching(process.pid, `${tool} `));
/** Waits for the killed tools to have exited: a SIGKILLed process takes a moment to go. */
const noToolsLeft = () =>
  waitFor("the job's tools to have exited", () => (toolsLeft().length === 0 ? true : undefined));

async function submit(client: Client, path: string, file: string, options?: unknown): Promise<string> {
  const created = await client.postFiles(path, [{ path: file }], options);
  expect(created.status).toBe(202);
  return created.body.id as string;
}

/** A hostile job and a normal rotate sent right after it; both end. */
async function beside(client: Client, operation: string, file: string): Promise<[JobBody, JobBody]> {
  const hostileId = await submit(client, operation, file);
  const normalId = await submit(client, "/v1/rotate", normal, { angle: 90 });
  return [await client.waitForJob(hostileId), await client.waitForJob(normalId)];
}

describe("sandbox isolation, through the worker", () => {
  let stack: Stack | undefined;
  beforeAll(async () => {
    files = await createTempDir("octavo-hostile-");
    scratch = await createTempDir("octavo-isolation-tmp-");
    process.env.TMPDIR = scratch.path;
  });
  afterAll(async () => {
    if (systemTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = systemTmp;
    await scratch.dispose();
    await files.dispose();
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });
  /** The single-machine stack with these settings, and a client of a Business account on it. */
  async function startWith(env: Record<string, string> = {}): Promise<{ client: Client; running: Stack }> {
    const running = await startStack({ database: "sqlite", redis: "supervised", env });
    stack = running;
    return { client: new Client(running.baseUrl, (await running.createAccount("business")).apiKey), running };
  }

  it("stops an endless content stream at the timeout, with its tools, and runs the job beside it", async () => {
    // 10 s: far short of the endless job's minute, and room for the rotations beside it on a busy machine.
    const { client } = await startWith({ OCTAVO_JOB_TIMEOUT_SECONDS: "10" });
    // 2^22 strokes: repair's text check would take about a minute on it.
    const [endless, rotated] = await beside(client, "/v1/repair", hostile("endless.pdf", nestedFormsPdf(22)));
    expect(endless).toMatchObject({
      status: "failed",
      error: "timeout",
      message: "The job ran longer than 10 seconds and was stopped.",
    });
    expect(rotated.status).toBe("done");
    await noToolsLeft();
    // The worker goes on: the next job runs.
    expect((await client.waitForJob(await submit(client, "/v1/rotate", normal, { angle: 180 }))).status).toBe(
      "done",
    );
    expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 2, creditsReserved: 0 });
  });

  it("fails a memory bomb's job alone when its sandbox runs out of memory", async () => {
    const { client } = await startWith({ OCTAVO_SANDBOX_MEMORY_MB: "128" });
    // 2.6 million characters for layout analysis: far beyond a 128 MB heap, reached in seconds.
    const bomb = hostile("text-bomb.pdf", nestedFormsPdf(17, "text"));
    const [exhausted, rotated] = await beside(client, "/v1/convert/pdf-to-word", bomb);
    expect(exhausted).toMatchObject({ status: "failed", error: "conversion_failed" });
    expect(exhausted.message).toMatch(/engine crashed/);
    expect(rotated.status).toBe("done");
    expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 1, creditsReserved: 0 });
  });

  it("fails a file that crashes the engine alone, and a sandbox killed by a signal too", async () => {
    const { client } = await startWith();
    // Sixty nested forms: MuPDF's WebAssembly runs off its memory and traps.
    const [trapped, rotated] = await beside(
      client,
      "/v1/convert/pdf-to-word",
      hostile("trap.pdf", nestedFormsPdf(60)),
    );
    expect(trapped).toMatchObject({ status: "failed", error: "conversion_failed" });
    expect(rotated.status).toBe("done");

    // A native crash, as a hostile file could cause in an engine: SIGSEGV to the sandbox at work, found
    // by the CPU time it spends on the minute-long page (an idle sandbox has used a fraction of a second).
    const repairId = await submit(client, "/v1/repair", hostile("slow.pdf", nestedFormsPdf(22)));
    const working = await waitFor("the repair's sandbox to be at work", async () =>
      sandboxes().find((pid) => cpuSeconds(pid) > 2),
    );
    process.kill(working, "SIGSEGV");
    const rotateId = await submit(client, "/v1/rotate", normal, { angle: 270 });
    expect(await client.waitForJob(repairId)).toMatchObject({ status: "failed", error: "conversion_failed" });
    expect((await client.waitForJob(rotateId)).status).toBe("done");
    await noToolsLeft();
  });

  it("leaves nothing in the temp directory after a job killed at its timeout, nor once the workers stop", async () => {
    const { client, running } = await startWith({ OCTAVO_JOB_TIMEOUT_SECONDS: "1" });
    const entries = () => readdirSync(scratch.path).sort();
    const before = entries();
    expect(before.filter((name) => name.startsWith("octavo-resident-"))).toHaveLength(1);
    // Ghostscript's rewrite of this 3 MB file takes over a second, writing its gs_* files as it goes.
    const created = await client.postFiles(
      "/v1/compress",
      [{ path: corpusPath("general/govdocs_error_set_2_064034.pdf") }],
      { level: "recommended" },
    );
    expect(await client.waitForJob(created.body.id as string)).toMatchObject({
      status: "failed",
      error: "timeout",
      message: "The job ran longer than 1 second and was stopped.",
    });
    await noToolsLeft();
    // The work dir (with the engines' temp files) is removed just after the job is settled.
    await waitFor("the temp directory to be as it was", () => {
      const now = entries();
      return now.length === before.length && now.every((name, index) => name === before[index])
        ? true
        : undefined;
    }).catch(() => expect(entries()).toEqual(before));
    stack = undefined;
    await running.close();
    expect(entries().filter((name) => name.startsWith("octavo-resident-"))).toEqual([]);
  });

  // Sandbox reuse, seen on one stack with the default settings: the light jobs' first, then Fill form's.
  describe("with the default settings", () => {
    let shared: { client: Client; running: Stack };
    beforeAll(async () => {
      const running = await startStack({ database: "sqlite", redis: "supervised" });
      shared = {
        client: new Client(running.baseUrl, (await running.createAccount("business")).apiKey),
        running,
      };
    });
    afterAll(async () => shared?.running.close());

    it("runs light jobs one after another in the same sandbox, each leaving nothing behind", async () => {
      const { client, running } = shared;
      const jobDirs = () => readdirSync(scratch.path).filter((name) => name.startsWith("octavo-job-"));
      await client.waitForJob(await submit(client, "/v1/rotate", normal, { angle: 90 }));
      const warm = sandboxes();
      for (const angle of [90, 180, 270]) {
        const job = await client.waitForJob(await submit(client, "/v1/rotate", normal, { angle }));
        expect(job.status).toBe("done");
      }
      // No new process started for them: the same sandboxes took the jobs.
      expect(sandboxes().sort()).toEqual(warm.sort());
      // Each job's files are gone once it ended.
      // The work dir is removed just after the job is settled, so the client may see "done" a moment before.
      await waitFor("the jobs' work dirs to be removed", () => (jobDirs().length === 0 ? true : undefined));
      for (const pid of warm) {
        // The sandboxes hold none of the service's secrets.
        const environment = readFileSync(`/proc/${pid}/environ`, "utf8");
        expect(environment).not.toContain("OCTAVO_");
        expect(environment).not.toContain(running.config.secretKey);
      }
    });

    it("keeps a Fill form sandbox for its own account's next jobs, and starts another account's afresh", async () => {
      const { client, running } = shared;
      const other = new Client(running.baseUrl, (await running.createAccount("business")).apiKey);
      const done = async (as: Client, path: string, options?: unknown) => {
        const job = await as.waitForJob(await submit(as, path, form, options));
        expect(job.status, job.message).toBe("done");
      };
      const fill = { values: { "First Name": "Ada" } };
      await done(client, "/v1/forms/fill", fill);
      const afterFirst = sandboxes();
      // The account's next Fill form and Read form jobs take the process its first one left waiting.
      await done(client, "/v1/forms/fill", fill);
      await done(client, "/v1/forms/read");
      expect(sandboxes().sort()).toEqual([...afterFirst].sort());
      // Another account's job never takes it: it takes the spare, and a new spare starts.
      await done(other, "/v1/forms/fill", { values: { "First Name": "Grace" } });
      const afterOther = sandboxes();
      expect(afterOther.filter((pid) => !afterFirst.includes(pid))).toHaveLength(1);
      // Each account's process still waits for that account alone.
      await done(client, "/v1/forms/fill", fill);
      await done(other, "/v1/forms/read");
      expect(sandboxes().sort()).toEqual([...afterOther].sort());
    });
  });
});
