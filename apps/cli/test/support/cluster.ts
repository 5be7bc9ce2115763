import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadConfig } from "@octavo/config";
import type { PlanId } from "@octavo/contracts";
import {
  createTempDir,
  createTestDatabase,
  type S3Server,
  s3Env,
  sharedRedisUrl,
  startS3Server,
  waitFor,
} from "@octavo/testing";
import { openRuntime, type Runtime } from "../../src/runtime.js";
import { spawnOctavo } from "./processes.js";
import { freePort } from "./stack.js";

export type OctavoProcess = ChildProcess & { output: () => string };

export interface Cluster {
  /** The API nodes' base URLs, e.g. http://127.0.0.1:41234 */
  apiUrls: string[];
  /** What every node shares: PostgreSQL, Redis, the S3 bucket and the secret key. */
  env: Record<string, string>;
  /** An in-process handle on the shared database and storage, for set-up and inspection. */
  runtime: Runtime;
  s3: S3Server;
  createAccount(plan: PlanId): Promise<{ accountId: string; apiKey: string }>;
  /** `octavo worker --queues <queues>`, resolved once its consumers are connected. */
  startWorker(queues: string, env?: Record<string, string>): Promise<OctavoProcess>;
  close(): Promise<void>;
}

/** Resolves with the exit code (or signal) once the process has ended. */
export function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode ?? "");
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "")));
}

/** The JSON log lines a process wrote with the given message. */
export function logLines(child: OctavoProcess, msg: string): Record<string, unknown>[] {
  return child
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The fleet on loopback: PostgreSQL (a fresh database, or the one at `databaseUrl`, which the caller
 * owns), the machine's Redis (a fresh key prefix), an S3 server, and one separate `octavo api` process
 * per entry of `apis` (its own extra settings). Workers are started by the tests.
 */
export async function startCluster(options: {
  apis: Record<string, string>[];
  env?: Record<string, string>;
  databaseUrl?: string;
}): Promise<Cluster> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, dispose: async () => undefined }
    : await createTestDatabase("postgres");
  const dataDir = await createTempDir("octavo-cluster-");
  const s3 = await startS3Server({ bucket: "octavo-cluster" });
  const children: OctavoProcess[] = [];
  const env: Record<string, string> = {
    OCTAVO_DATA_DIR: dataDir.path,
    OCTAVO_DATABASE_URL: database.url,
    OCTAVO_REDIS_URL: sharedRedisUrl(),
    OCTAVO_QUEUE_PREFIX: `cluster-${randomBytes(4).toString("hex")}`,
    ...s3Env(s3),
    OCTAVO_SECRET_KEY: randomBytes(32).toString("hex"),
    OCTAVO_LOG_LEVEL: "info",
    ...options.env,
  };
  // The AWS SDK reads credentials from the environment, as it does in every node.
  const credentials = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] as const;
  const previous = credentials.map((name) => process.env[name]);
  for (const name of credentials) process.env[name] = env[name];
  const runtime = await openRuntime(loadConfig(env), "test");
  const apiUrls: string[] = [];
  const close = async () => {
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map(exited));
    await runtime.close();
    for (const [index, name] of credentials.entries()) {
      if (previous[index] === undefined) delete process.env[name];
      else process.env[name] = previous[index];
    }
    await s3.close();
    await database.dispose();
    await dataDir.dispose();
  };
  try {
    for (const [node, nodeEnv] of options.apis.entries()) {
      const port = await freePort();
      const api = spawnOctavo(["api"], { ...env, ...nodeEnv, OCTAVO_PORT: String(port) });
      children.push(api);
      const url = `http://127.0.0.1:${port}`;
      await waitFor(
        `API node ${node} to answer /healthz`,
        async () => {
          if (api.exitCode !== null) throw new Error(`API node ${node} exited:\n${api.output()}`);
          return (await fetch(`${url}/healthz`).catch(() => undefined))?.ok ? true : undefined;
        },
        60_000,
      );
      apiUrls.push(url);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    apiUrls,
    env,
    runtime,
    s3,
    async createAccount(plan) {
      const email = `user-${randomBytes(6).toString("hex")}@example.com`;
      return runtime.accounts.createAccount(email, plan);
    },
    async startWorker(queues, extraEnv = {}) {
      const worker = spawnOctavo(["worker", "--queues", queues], { ...env, ...extraEnv });
      children.push(worker);
      await waitFor(
        `the worker for ${queues} to start`,
        () => {
          if (worker.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
          return logLines(worker, "workers started").length > 0 ? true : undefined;
        },
        60_000,
      );
      return worker;
    },
    close,
  };
}
