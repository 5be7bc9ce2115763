import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childrenMatching,
  createTempDir,
  createTestDatabase,
  sharedRedisUrl,
  type TempResource,
  waitFor,
} from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited } from "./support/cluster.js";
import { cliLauncher } from "./support/processes.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The machine's own PATH first: `npx octavo` must work even when that node is older than 24. */
const systemPath = ["/usr/local/bin", "/usr/bin", "/bin", process.env.PATH ?? ""].join(":");

describe("the operator CLI, as `npx octavo` from the repository root", () => {
  let dataDir: { path: string; dispose(): Promise<void> };
  let database: TempResource;
  let env: Record<string, string>;

  function octavo(...args: string[]): { status: number | null; json: unknown; stderr: string } {
    const result = spawnSync("npx", ["--no-install", "octavo", ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env, PATH: systemPath },
      encoding: "utf8",
      timeout: 60_000,
    });
    let json: unknown;
    try {
      json = JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
    return { status: result.status, json, stderr: result.stderr };
  }

  beforeAll(async () => {
    dataDir = await createTempDir("octavo-cli-");
    database = await createTestDatabase("postgres");
    env = { OCTAVO_DATA_DIR: dataDir.path, OCTAVO_DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await database?.dispose();
    await dataDir?.dispose();
  });

  it("manages accounts, credits and keys, printing clean JSON", () => {
    expect(octavo("migrate").status).toBe(0);
    const created = octavo("accounts", "create", "--email", "Ops@Example.com", "--plan", "starter");
    expect(created.status, created.stderr).toBe(0);
    const account = created.json as { accountId: string; apiKey: string; webhookSecret: string };
    expect(account.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);
    expect(account.webhookSecret).toMatch(/^whsec_/);

    const duplicate = octavo("accounts", "create", "--email", "ops@example.com", "--plan", "free");
    expect(duplicate.status).not.toBe(0);
    expect(duplicate.stderr).toContain("already exists");

    expect(
      octavo("accounts", "adjust-credits", account.accountId, "500", "--reason", "launch bonus").status,
    ).toBe(0);
    expect(
      octavo("accounts", "adjust-credits", account.accountId, "-20", "--reason", "correction").status,
    ).toBe(0);
    expect(octavo("accounts", "set-plan", account.accountId, "pro").status).toBe(0);
    const shown = octavo("accounts", "show", account.accountId).json as Record<string, unknown>;
    expect(shown).toMatchObject({
      email: "ops@example.com",
      plan: "pro",
      creditsIncluded: 10_480,
      creditsUsed: 0,
    });

    const key = octavo("keys", "create", account.accountId, "--label", "ci").json as {
      keyId: string;
      apiKey: string;
    };
    expect(key.apiKey).toMatch(/^svc_live_/);
    const testKey = octavo("keys", "create", account.accountId, "--label", "sandbox", "--test").json;
    expect(testKey).toMatchObject({ mode: "test", apiKey: expect.stringMatching(/^svc_test_/) });
    expect(octavo("keys", "list", account.accountId, "--test").stderr).toContain(
      "--test is an option of octavo keys create",
    );
    const keys = octavo("keys", "list", account.accountId).json as {
      id: string;
      label: string;
      mode: string;
      revokedAt: string | null;
    }[];
    expect(keys.map((entry) => [entry.label, entry.mode])).toEqual([
      ["default", "live"],
      ["ci", "live"],
      ["sandbox", "test"],
    ]);
    expect(JSON.stringify(keys)).not.toContain(key.apiKey); // only the prefix is ever shown again
    expect(octavo("keys", "revoke", key.keyId).status).toBe(0);
    const revokedTwice = octavo("keys", "revoke", key.keyId);
    expect(revokedTwice.status).not.toBe(0);
    expect(revokedTwice.stderr).toContain("already revoked");
  });

  it("stops on a wrong setting, naming it", () => {
    const badPort = spawnSync("npx", ["--no-install", "octavo", "migrate"], {
      cwd: repoRoot,
      env: { ...process.env, ...env, PATH: systemPath, OCTAVO_PORT: "eighty" },
      encoding: "utf8",
    });
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain("OCTAVO_PORT");
    const typo = spawnSync("npx", ["--no-install", "octavo", "migrate"], {
      cwd: repoRoot,
      env: { ...process.env, ...env, PATH: systemPath, OCTAVO_RESULTS_TTL_SECONDS: "5" },
      encoding: "utf8",
    });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("OCTAVO_RESULTS_TTL_SECONDS");
  });

  it("passes a supervisor's SIGTERM, sent to the launcher alone, on to the worker it started, which stops and exits 0", async () => {
    expect(octavo("migrate").status).toBe(0);
    // The machine's own node (older than 24 here): the launcher starts the pinned Node 24 as its child.
    const launcher = spawn("node", [cliLauncher, "worker", "--queues", "merge"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...env,
        PATH: systemPath,
        OCTAVO_REDIS_URL: sharedRedisUrl(),
        OCTAVO_QUEUE_PREFIX: `cli-${randomBytes(4).toString("hex")}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [launcher.stdout, launcher.stderr]) {
      stream.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
    }
    try {
      await waitFor(
        "the worker to start",
        () => {
          if (launcher.exitCode !== null) throw new Error(`the launcher exited:\n${output}`);
          return output.includes('"msg":"workers started"') ? true : undefined;
        },
        60_000,
      );
      const pid = launcher.pid ?? 0;
      // The process that logged "workers started": the launcher itself on Node 24, else its child.
      const workerPids = [pid, ...childrenMatching(pid, "dist/main.js worker")];
      launcher.kill("SIGTERM"); // the launcher's pid only, as Docker or Kubernetes would
      expect(await exited(launcher), output).toBe(0);
      expect(output).toContain(
        '"signal":"SIGTERM","msg":"shutting down: no new jobs, finishing the running ones"',
      );
      await waitFor(
        "the worker to be gone",
        () => (workerPids.every((worker) => !alive(worker)) ? true : undefined),
        10_000,
      );
    } finally {
      launcher.kill("SIGKILL");
    }
  });

  it("reports every engine with its version", () => {
    const doctor = octavo("doctor");
    const report = doctor.json as { name: string; found: boolean; version?: string }[];
    expect(doctor.status, JSON.stringify(report)).toBe(0);
    for (const name of ["node", "redis-server", "qpdf", "libreoffice", "chromium"]) {
      expect(report.find((entry) => entry.name === name)).toMatchObject({
        found: true,
        version: expect.any(String),
      });
    }
    expect(report.find((entry) => entry.name === "node")?.version).toMatch(/^24\./);
  });
});

/** Whether a process with this pid still runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
