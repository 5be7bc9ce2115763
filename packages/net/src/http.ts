import type { Agent, Dispatcher } from "undici";

export const USER_AGENT = "octavo";

/** The first value of a response header, undici giving string | string[] | undefined. */
export function header(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads and drops what is left of a body, at most `limit` bytes; never buffers and never throws. */
export async function discard(body: Dispatcher.ResponseData["body"], limit = 64 * 1024): Promise<void> {
  await body.dump({ limit });
}

/**
 * Frees an operation's sockets. Nothing can be done if that fails and the request is already settled,
 * so the failure is only reported as a process warning.
 */
export function release(agent: Agent): void {
  agent.destroy().catch((error: unknown) => {
    process.emitWarning(`@octavo/net: closing connections failed: ${String(error)}`);
  });
}
