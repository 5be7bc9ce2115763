import { createServer } from "node:net";
import { type Config, loadConfig } from "@octavo/config";
import type { PlanId } from "@octavo/contracts";
import { createTempDir, createTestDatabase, type DatabaseKind, sharedRedisUrl } from "@octavo/testing";
import { resolveQueues, type Serving, serve } from "../../src/commands/serve.js";
import { openQueueRuntime, type QueueRuntime } from "../../src/runtime.js";

export interface StackOptions {
  database: DatabaseKind;
  /** "supervised": the single-machine default (octavo's own redis-server); "shared": the machine's Redis. */
  redis: "supervised" | "shared";
  api?: boolean;
  workers?: boolean;
  /** The queues the workers take, as `octavo worker --queues` reads them; all by default. */
  queues?: string;
  env?: Record<string, string>;
}

export interface Stack {
  baseUrl: string;
  config: Config;
  runtime: QueueRuntime;
  /** The environment another octavo process needs to join this stack (same database, Redis, storage). */
  env: Record<string, string>;
  createAccount(plan: PlanId): Promise<{ accountId: string; apiKey: string; webhookSecret: string }>;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * A whole octavo in this process: real database (a fresh SQLite file or PostgreSQL database), real
 * Redis, local storage in a temp dir, the API on a free port and the workers with their sandboxes.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const dataDir = await createTempDir("octavo-stack-");
  const database = await createTestDatabase(options.database);
  const port = await freePort();
  const env: Record<string, string> = {
    OCTAVO_DATA_DIR: dataDir.path,
    OCTAVO_PORT: String(port),
    OCTAVO_DATABASE_URL: database.url,
    OCTAVO_QUEUE_PREFIX: `test-${port}`,
    OCTAVO_LOG_LEVEL: "warn",
    ...(options.redis === "shared" ? { OCTAVO_REDIS_URL: sharedRedisUrl() } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const runtime = await openQueueRuntime(config, "test");
  let serving: Serving | undefined;
  try {
    serving = await serve(runtime, {
      api: options.api ?? true,
      queues: (options.workers ?? true) ? resolveQueues(options.queues, config.workerConcurrency) : undefined,
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const running = serving;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    runtime,
    env: { ...env, ...(options.redis === "supervised" ? { OCTAVO_REDIS_URL: runtime.redisUrl } : {}) },
    async createAccount(plan) {
      const email = `user-${Math.random().toString(36).slice(2)}@example.com`;
      return runtime.accounts.createAccount(email, plan);
    },
    async close() {
      await running.close();
      await runtime.close();
      await database.dispose();
      await dataDir.dispose();
    },
  };
}
