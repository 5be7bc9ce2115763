import { request } from "undici";
import { startDeadline } from "./abort.js";
import type { AllowList } from "./allowlist.js";
import { tooLarge } from "./errors.js";
import { outboundFailure } from "./failures.js";
import { discard, header, release, USER_AGENT } from "./http.js";
import { pinnedAgent } from "./pinned-agent.js";
import { PinnedHosts, type Resolver } from "./pinned-hosts.js";
import { parseTarget, type Target } from "./target.js";

export interface PostOptions {
  allowlist: AllowList;
  /** For the whole exchange: DNS, connect, and the answer. */
  timeoutMs: number;
  signal?: AbortSignal;
  resolve?: Resolver;
}

/** An answer read whole: its status, content type and body. */
export interface PostAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
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
  const sent = { "content-type": "application/json", ...lowerCased(headers) };
  return post(url, body, sent, options, async (response) => {
    await discard(response.body);
    return { status: response.statusCode };
  });
}

/**
 * POSTs bytes (an RFC 3161 time-stamp query) under the same policy and reads the answer whole, up to
 * `maxAnswerBytes`: a larger one fails with too_large.
 */
export async function postBytes(
  url: string,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>,
  options: PostOptions & { maxAnswerBytes: number },
): Promise<PostAnswer> {
  return post(url, body, lowerCased(headers), options, async (response) => {
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > options.maxAnswerBytes) {
        response.body.destroy();
        throw tooLarge(`the answer is larger than ${options.maxAnswerBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const contentType = header(response.headers, "content-type");
    return { status: response.statusCode, contentType, body: Buffer.concat(chunks) };
  });
}

type Response = Awaited<ReturnType<typeof request>>;

async function post<T>(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  options: PostOptions,
  read: (response: Response) => Promise<T>,
): Promise<T> {
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
      headers: { "user-agent": USER_AGENT, ...headers },
    });
    return await read(response);
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
