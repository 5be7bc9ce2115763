import type { Server } from "node:http";
import { type ApiContext, createApp, createOutbound, PlanRateLimiter } from "@octavo/api";
import { type OperationId, operations } from "@octavo/contracts";
import { pingDatabase } from "@octavo/db";
import { availableOperations } from "@octavo/engines";
import { pingRedis, WEBHOOK_QUEUE } from "@octavo/queue";
import { type QueueName, type RunningWorkers, startWorkers, toolOperationsInstalled } from "@octavo/worker";
import type { QueueRuntime } from "../runtime.js";

export interface Serving {
  server: Server | undefined;
  workers: RunningWorkers | undefined;
  /** The API's address once listening, e.g. http://127.0.0.1:8000 */
  address: string | undefined;
  close(): Promise<void>;
}

function implementedQueues(): OperationId[] {
  const implemented = new Set<string>([...availableOperations, ...toolOperationsInstalled()]);
  return operations.map((operation) => operation.id).filter((id) => implemented.has(id));
}

/** Queue names a worker may be given: the operations with engines, and the webhook deliveries. */
export function resolveQueues(requested: string | undefined): QueueName[] {
  const implemented: QueueName[] = [...implementedQueues(), WEBHOOK_QUEUE];
  if (requested === undefined || requested === "" || requested === "all") return implemented;
  const names = requested.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !implemented.includes(name as QueueName));
  if (unknown.length > 0) {
    throw new Error(
      `unknown or unavailable queue ${unknown.join(", ")}; available: ${implemented.join(", ")}`,
    );
  }
  return names as QueueName[];
}

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

/**
 * Starts the API and/or the workers of one process on an open runtime. `octavo start` runs both,
 * `octavo api` and `octavo worker` one each; they share the same code.
 */
export async function serve(
  runtime: QueueRuntime,
  roles: { api: boolean; queues: QueueName[] | undefined },
): Promise<Serving> {
  const workers = roles.queues ? await startWorkers({ ...runtime }, roles.queues) : undefined;
  let server: Server | undefined;
  let address: string | undefined;
  if (roles.api) {
    const queues = implementedQueues();
    const ctx: ApiContext = {
      ...runtime,
      availableOperations: new Set(queues),
      rateLimiter: new PlanRateLimiter(runtime.producerConnection, runtime.config.queuePrefix),
      outbound: createOutbound({
        allowlist: runtime.allowlist,
        timeoutMs: runtime.config.urlTimeoutSeconds * 1000,
      }),
      readinessChecks: [
        { name: "database", check: () => pingDatabase(runtime.database) },
        {
          name: "redis",
          check: async () => {
            if (!(await pingRedis(runtime.redisUrl))) throw new Error("Redis does not answer");
          },
        },
        { name: "storage", check: () => runtime.store.check() },
        {
          name: "workers",
          check: async () => {
            const consumed = [...queues, WEBHOOK_QUEUE];
            const counts = await Promise.all(consumed.map((queue) => runtime.producer.workerCount(queue)));
            const idle = consumed.filter((_queue, index) => (counts[index] ?? 0) === 0);
            if (idle.length > 0) throw new Error(`no worker consumes ${idle.join(", ")}`);
          },
        },
      ],
    };
    server = await listen(createApp(ctx), runtime.config.host, runtime.config.port);
    const bound = server.address();
    address = typeof bound === "object" && bound ? `http://${runtime.config.host}:${bound.port}` : undefined;
    runtime.logger.info({ address }, "API listening");
  }
  return {
    server,
    workers,
    address,
    async close() {
      if (server) {
        const closing = server;
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      }
      await workers?.close();
    },
  };
}
