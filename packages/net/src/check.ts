import type { AllowList } from "./allowlist.js";
import { blocked } from "./errors.js";
import { PinnedHosts, type Resolver } from "./pinned-hosts.js";
import { parseTarget, type ResolvedAddress } from "./target.js";

export interface CheckOptions {
  allowlist: AllowList;
  resolve?: Resolver;
  signal?: AbortSignal;
}

export interface CheckedHost {
  /** The host without IPv6 brackets, IPs in their usual form, and the port (80/443 filled in). */
  host: string;
  port: number;
  /** The checked addresses, in the resolver's order; connect to these and nothing else. */
  addresses: readonly ResolvedAddress[];
}

export interface CheckedTarget extends CheckedHost {
  /** The normalised URL. */
  url: string;
}

/**
 * Resolves and checks a URL without sending anything. The API refuses a private webhook_url with it at
 * submission (400 blocked_url); a delivery checks again, as the name may resolve differently by then.
 */
export async function checkUrl(url: string, options: CheckOptions): Promise<CheckedTarget> {
  const target = parseTarget(url);
  const pins = new PinnedHosts(options.allowlist, options.resolve);
  const addresses = await pins.check(target.host, target.port, options.signal);
  return { url: target.url.href, host: target.host, port: target.port, addresses };
}

/**
 * The policy for a bare host and port, for callers that open their own connections (the browser's
 * policy proxy): returns the checked addresses to connect to, or throws OutboundError. The host may be
 * a name or an IP in any form the URL parser reads ("0x7f.1", "[::1]"); it is normalised first.
 */
export async function checkHost(host: string, port: number, options: CheckOptions): Promise<CheckedHost> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw blocked(`${port} is not a valid port`);
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const bracketed = bare.includes(":") ? `[${bare}]` : bare;
  if (bracketed === "" || /[/?#@\\\s]/.test(bracketed)) throw blocked(`"${host}" is not a valid host name`);
  const parsed = URL.parse(`http://${bracketed}/`);
  if (!parsed || parsed.host !== parsed.hostname) throw blocked(`"${host}" is not a valid host name`);
  const normalised = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const pins = new PinnedHosts(options.allowlist, options.resolve);
  return { host: normalised, port, addresses: await pins.check(normalised, port, options.signal) };
}
