import { spawn } from "node:child_process";
import { get } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusPath, createTempDir, descendantsMatching, processesMatching, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited } from "./support/cluster.js";
import { cliAccount, octavoCli, startServiceProcess } from "./support/service.js";
import { freePort } from "./support/stack.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

// The single-machine service as `npm start` runs it, stopped the way a terminal's Ctrl-C stops it: SIGINT to
// its whole process group. The running jobs finish, nothing is left running, and nothing is logged as an error.
describe("octavo start, stopped by a signal to its process group", () => {
  let dataDir: Awaited<ReturnType<typeof createTempDir>>;
  beforeAll(async () => {
    dataDir = await createTempDir("octavo-shutdown-");
  });
  afterAll(async () => {
    await dataDir.dispose();
  });

  it("finishes its running jobs, stops its redis-server and sandboxes, and logs no error (nor for a download the client drops)", async () => {
    // A grace period far longer than the jobs: what is under test is that running jobs finish, however
    // slowly a busy machine runs them (a job past the grace period is cluster.test.ts's case).
    const env = {
      ...process.env,
      OCTAVO_DATA_DIR: dataDir.path,
      OCTAVO_LOG_LEVEL: "info",
      OCTAVO_SHUTDOWN_GRACE_SECONDS: "600",
    };
    expect(octavoCli(env, "migrate").status).toBe(0);
    const account = cliAccount(env, "ops@example.com");
    const running = await startServiceProcess(env);
    const { process: service, output, logged } = running;
    try {
      const client = running.client(account.apiKey);
      // A 13 MB result, dropped by its client as soon as the headers come: the server is still sending it.
      const big = corpusPath("general/govdocs_error_set_2_064034.pdf");
      const merged = await client.postFiles(
        "/v1/merge",
        [big, big, big, big].map((path) => ({ path })),
      );
      const [result] = (await client.waitForJob(merged.body.id as string)).outputs ?? [];
      await new Promise<void>((resolve, reject) => {
        const request = get(result?.url ?? "", (response) => {
          expect(response.statusCode).toBe(200);
          request.destroy();
          response.once("close", () => resolve());
        });
        request.once("error", (error) => (request.destroyed ? undefined : reject(error)));
      });
      // Seconds of Ghostscript and image work each: both are running when the signal comes.
      const ids: string[] = [];
      for (let index = 0; index < 2; index += 1) {
        const created = await client.postFiles(
          "/v1/compress",
          [{ path: corpusPath("general/samplefiles_GeoTopo-komprimiert.pdf") }],
          { level: "recommended" },
        );
        expect(created.status).toBe(202);
        ids.push(created.body.id as string);
      }
      await waitFor(
        "both jobs to start",
        () => (ids.every((id) => logged("job started").some((line) => line.jobId === id)) ? true : undefined),
        30_000,
      );
      // Its own sandboxes: other test files run theirs beside it.
      const sandboxes = descendantsMatching(service.pid ?? 0, "sandbox/child.js");
      expect(sandboxes.length).toBeGreaterThan(0);

      process.kill(-(service.pid ?? 0), "SIGINT");
      expect(await exited(service), output()).toBe(0);
      expect(logged("job done").map((line) => line.jobId)).toEqual(expect.arrayContaining(ids));
      const problems = output()
        .split("\n")
        .filter((line) => /"level":(40|50|60)/.test(line) || line.includes("Unhandled"));
      expect(problems).toEqual([]);
      // The redis-server and its lifeline name the data dir's socket in their command lines.
      expect(processesMatching(dataDir.path)).toEqual([]);
      expect(processesMatching("sandbox/child.js").filter((pid) => sandboxes.includes(pid))).toEqual([]);
    } finally {
      if (service.exitCode === null) process.kill(-(service.pid ?? 0), "SIGKILL");
    }
  });
});

/** Whether the process is still there (a zombie counts as gone). */
function alive(pid: number): boolean {
  return processesMatching("").includes(pid);
}

// The README's `npm start`, stopped the way a supervisor that signals one process stops it: the signal goes
// to the npm process alone, not its group. npm passes SIGINT and SIGTERM on to its script, and not SIGHUP;
// either way the whole service must stop, and with SIGINT and SIGTERM npm ends with the service's status.
describe("npm start, stopped by a signal to the npm process alone", () => {
  // Each case's processes, killed at the end even when a case times out before its own cleanup.
  const everyService: number[] = [];
  afterAll(() => {
    for (const pid of everyService.filter(alive)) process.kill(pid, "SIGKILL");
  });
  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "%s stops every process of the service",
    async (signal) => {
      const dataDir = await createTempDir("octavo-npm-start-");
      const port = await freePort();
      // --no-install: this checkout is set up, and a build must not rewrite files other test files read.
      const npm = spawn("npm", ["start", "--", "--no-install"], {
        cwd: repoRoot,
        env: {
          ...process.env,
          OCTAVO_DATA_DIR: dataDir.path,
          OCTAVO_PORT: String(port),
          OCTAVO_SHUTDOWN_GRACE_SECONDS: "5",
        },
        detached: true, // a group of its own, so that only the test's cleanup ever signals the group
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      for (const stream of [npm.stdout, npm.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk));
      const npmPid = npm.pid;
      if (npmPid === undefined) throw new Error("npm did not start");
      let service: number[] = [];
      try {
        await waitFor(
          "the API to answer /healthz",
          async () => {
            if (npm.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
            const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
              (answer) => answer.status,
              () => 0,
            );
            return status === 200 ? true : undefined;
          },
          90_000,
          200,
        );
        // Everything npm started: the shell, setup.mjs, octavo start, its redis-server, sandboxes, engines.
        service = descendantsMatching(npmPid, "");
        everyService.push(npmPid, ...service);
        expect(service.length, output).toBeGreaterThanOrEqual(3);

        process.kill(npmPid, signal);
        const status = await exited(npm);
        if (signal !== "SIGHUP") expect(status, output).toBe(0);
        await waitFor(
          "every process of the service to end",
          () => (service.filter(alive).length === 0 ? true : undefined),
          60_000,
          100,
        );
        const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => true,
          () => false,
        );
        expect(answered).toBe(false);
      } finally {
        for (const pid of service.filter(alive)) process.kill(pid, "SIGKILL");
        if (npm.exitCode === null && npm.signalCode === null) process.kill(-npmPid, "SIGKILL");
        await dataDir.dispose();
      }
    },
  );
});
