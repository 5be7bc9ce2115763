import { request } from "undici";
import { startDeadline } from "./abort.js";
import type { AllowList } from "./allowlist.js";
import { outboundFailure } from "./failures.js";
import { discard, release, USER_AGENT } from "./http.js";
import { pinnedAgent } from "./pinned-agent.js";
import { PinnedHosts, type Resolver } from "./pinned-hosts.js";
import { parseTarget, type Target } from "./target.js";

export interface PostOptions {
  allowlist: AllowList;
  /** For the whole delivery: DNS, connect, and the answer. */
  timeoutMs: number;
  signal?: AbortSignal;
  resolve?: Resolver;
}

/**
 * POSTs a JSON body (a webhook delivery) under the outbound policy, over a pinned connection. Redirects
 * are not followed: any HTTP answer, 3xx included, is returned as its status and the caller counts
 * only 2xx as delivered. Throws OutboundError: blocked_url (policy) or unreachable_url (network,
 * timeout). The answer's body is read up to 64 KiB and dropped.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: PostOptions,
): Promise<{ status: number }> {
  const deadline = startDeadline(options.timeoutMs, "the server did not answer", options.signal);
  const pins = new PinnedHosts(options.allowlist, options.resolve);
  const agent = pinnedAgent(pins, options.timeoutMs);
  let target: Target | undefined;
  try {
    target = parseTarget(url);
    await pins.check(target.host, target.port, deadline.signal);
    const response = await request(target.url, {
      method: "POST",
      dispatcher: agent,
      signal: deadline.signal,
      body,
      headers: { "user-agent": USER_AGENT, "content-type": "application/json", ...lowerCased(headers) },
    });
    await discard(response.body);
    return { status: response.statusCode };
  } catch (error) {
    const where = target ? `${target.url.hostname}:${target.port}` : "the server";
    throw outboundFailure(error, where, deadline, options.signal);
  } finally {
    deadline.clear();
    release(agent);
  }
}

/** So a caller's "Content-Type" replaces the default instead of being sent next to it. */
function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
