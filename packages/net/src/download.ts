import type { Readable } from "node:stream";
import { request } from "undici";
import { startDeadline } from "./abort.js";
import type { AllowList } from "./allowlist.js";
import { limitBody } from "./body-limit.js";
import { tooLarge, unreachable } from "./errors.js";
import { outboundFailure } from "./failures.js";
import { fileNameFor } from "./file-name.js";
import { discard, header, release, USER_AGENT } from "./http.js";
import { pinnedAgent } from "./pinned-agent.js";
import { PinnedHosts, type Resolver } from "./pinned-hosts.js";
import { parseTarget, type Target } from "./target.js";

export interface DownloadOptions {
  allowlist: AllowList;
  /** Larger files fail with too_large: before reading when announced, else while streaming. */
  maxBytes: number;
  /** For the whole download of this URL: DNS, every redirect and the body. */
  timeoutMs: number;
  /** Redirects followed at most (default 5); one more is unreachable_url. */
  maxRedirects?: number;
  /** Aborting rejects (or errors the body) with the signal's reason, not an OutboundError. */
  signal?: AbortSignal;
  resolve?: Resolver;
}

export interface Download {
  /**
   * The file; errors with OutboundError too_large / unreachable_url (timeout, broken connection).
   * Consume (or destroy) it right away: the time limit keeps running, and like any stream it emits
   * 'error' when it fails.
   */
  body: Readable;
  fileName: string | undefined;
  /** The Content-Type header as sent. */
  contentType: string | undefined;
  /** The URL the file came from, after redirects. */
  finalUrl: string;
  /** Content-Length when the server sent a valid one. */
  declaredLength: number | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function contentLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** The next hop, checked like the first: the scheme and credential rules hold for every Location. */
function redirectTarget(location: string | undefined, from: Target, status: number): Target {
  if (!location) throw unreachable(`the server answered ${status} without a Location header`);
  const next = URL.parse(location, from.url.href);
  if (!next) throw unreachable(`the server answered ${status} with a Location that is not a valid URL`);
  return parseTarget(next);
}

/**
 * Downloads a client's URL input under the outbound policy. Each hop (the URL and every redirect) is
 * resolved once and checked before anything is sent to it, and its connection goes to the checked
 * address. Throws (or errors the body with) OutboundError: blocked_url, unreachable_url, too_large.
 */
export async function downloadUrl(url: string, options: DownloadOptions): Promise<Download> {
  const maxRedirects = options.maxRedirects ?? 5;
  const deadline = startDeadline(options.timeoutMs, "the download did not finish", options.signal);
  const pins = new PinnedHosts(options.allowlist, options.resolve);
  const agent = pinnedAgent(pins, options.timeoutMs);
  let target: Target | undefined;
  const where = (): string => (target ? `${target.url.hostname}:${target.port}` : "the server");
  const fail = (error: unknown): unknown => outboundFailure(error, where(), deadline, options.signal);
  const close = (): void => {
    deadline.clear();
    release(agent);
  };

  try {
    target = parseTarget(url);
    for (let redirects = 0; ; redirects++) {
      // Checked here for a clear error before any request; the connection itself re-reads the same pins.
      await pins.check(target.host, target.port, deadline.signal);
      const response = await request(target.url, {
        method: "GET",
        dispatcher: agent,
        signal: deadline.signal,
        headers: { "user-agent": USER_AGENT, accept: "*/*" },
      });
      const status = response.statusCode;
      if (REDIRECTS.has(status)) {
        await discard(response.body);
        if (redirects >= maxRedirects) throw unreachable(`too many redirects (more than ${maxRedirects})`);
        target = redirectTarget(header(response.headers, "location"), target, status);
        continue;
      }
      if (status < 200 || status > 299) {
        await discard(response.body);
        throw unreachable(`the server answered ${status}; check that the URL is right and public`);
      }
      const declaredLength = contentLength(header(response.headers, "content-length"));
      if (declaredLength !== undefined && declaredLength > options.maxBytes) {
        response.body.destroy();
        throw tooLarge(
          `the server announced ${declaredLength} bytes, over the limit of ${options.maxBytes} bytes`,
        );
      }
      const contentType = header(response.headers, "content-type");
      return {
        body: limitBody(response.body, options.maxBytes, fail, close),
        fileName: fileNameFor({
          url: target.url,
          contentDisposition: header(response.headers, "content-disposition"),
          contentType,
        }),
        contentType,
        finalUrl: target.url.href,
        declaredLength,
      };
    }
  } catch (error) {
    close();
    throw fail(error);
  }
}
