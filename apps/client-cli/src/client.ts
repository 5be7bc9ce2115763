import { Octavo } from "@octavo/client";
import type { CliIo } from "./io.js";
import { UsageError } from "./usage-error.js";

export const defaultBaseUrl = "http://127.0.0.1:8000";

/**
 * The SDK client for this run: the key only from OCTAVO_API_KEY (a flag would leave it in shell
 * history and process lists), the address from OCTAVO_BASE_URL. The SDK's respectRateLimit stays on:
 * a batch waits for the next minute rather than running into 429s.
 */
export function createClient(io: CliIo): Octavo {
  const apiKey = io.env.OCTAVO_API_KEY?.trim();
  if (!apiKey) {
    throw new UsageError(
      "OCTAVO_API_KEY is not set: set it to your API key, e.g. export OCTAVO_API_KEY=svc_live_… (the key is never taken from a flag)",
    );
  }
  const baseUrl = io.env.OCTAVO_BASE_URL?.trim() || defaultBaseUrl;
  return new Octavo({ apiKey, baseUrl, respectRateLimit: true });
}

/**
 * Seconds each long poll of a job may last: progress is seen at every answer, but every poll counts
 * against the plan's requests per minute, so a plan under 60 a minute (Free: 10) polls every 20 s.
 */
export function pollSecondsFor(client: Pick<Octavo, "rateLimit">): number {
  const limit = client.rateLimit?.limit;
  return limit === undefined || limit < 60 ? 20 : 3;
}
