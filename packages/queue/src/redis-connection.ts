import { Redis } from "ioredis";

/**
 * How each role talks to Redis (BullMQ's production guide): workers retry forever
 * (`maxRetriesPerRequest: null`, required for blocking commands); the API fails fast when Redis is
 * down, so a request gets 503 instead of hanging.
 */
export type RedisRole = "worker" | "producer";

// Left to inference: ioredis's own RedisOptions type does not match its constructor under
// exactOptionalPropertyTypes, while object literals do.
function optionsFor(role: RedisRole) {
  return role === "worker"
    ? { maxRetriesPerRequest: null }
    : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 };
}

/** Accepts redis://, rediss:// and unix:///path/to/redis.sock (the supervised server's socket). */
export function createRedis(url: string, role: RedisRole): Redis {
  const parsed = new URL(url);
  if (parsed.protocol === "unix:") {
    const db = Number(parsed.searchParams.get("db") ?? 0);
    return new Redis({ ...optionsFor(role), path: decodeURIComponent(parsed.pathname), db });
  }
  return new Redis(url, optionsFor(role));
}

/** One PING with a deadline; false when nothing answers. */
export async function pingRedis(url: string, timeoutMs = 1_000): Promise<boolean> {
  const parsed = new URL(url);
  const base = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const client =
    parsed.protocol === "unix:"
      ? new Redis({ ...base, path: decodeURIComponent(parsed.pathname) })
      : new Redis(url, base);
  client.on("error", () => undefined); // reported through the rejected ping below
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Resolves once the connection is ready; a fail-fast producer cannot send anything before that. */
export async function waitUntilReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
