import { isIP } from "node:net";
import { classifyAddress } from "./address-policy.js";
import type { AllowList } from "./allowlist.js";
import { blocked } from "./errors.js";

/** One DNS answer, the shape `dns.lookup(host, { all: true })` gives. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** A URL that passed the checks that need no DNS: its host (without IPv6 brackets) and port. */
export interface Target {
  url: URL;
  host: string;
  port: number;
}

export type TargetDecision =
  | { allowed: true; host: string; port: number; addresses: readonly ResolvedAddress[] }
  | { allowed: false; reason: string };

type Parsed = { ok: true; target: Target } | { ok: false; reason: string };

/** The WHATWG parser lower-cases the scheme ("HTTP:") and normalises IP hosts ("0x7f.1" → 127.0.0.1). */
function readTarget(input: string | URL): Parsed {
  const url = URL.parse(String(input));
  if (!url) return { ok: false, reason: "this is not a valid URL" };
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `only http and https URLs are allowed, not ${url.protocol}` };
  }
  // Credentials in URLs end up in logs and job records, and "user@host" is a classic way to confuse
  // a reader about which host is meant; a protected file should use a pre-signed URL instead.
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: "URLs with a user name or password are not allowed; use a pre-signed or token URL instead",
    };
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { ok: true, target: { url, host, port } };
}

/** Parses and checks a URL (scheme, credentials); throws OutboundError blocked_url. */
export function parseTarget(input: string | URL): Target {
  const parsed = readTarget(input);
  if (!parsed.ok) throw blocked(parsed.reason);
  return parsed.target;
}

/** An IP host is its own only answer: no DNS is asked, and none could change it. */
export function literalAddress(host: string): ResolvedAddress | undefined {
  const family = isIP(host);
  return family === 0 ? undefined : { address: host, family };
}

/**
 * The policy for one host and port: allowed when the host (or host:port) is allowlisted, or when every
 * address is public or allowlisted. One bad answer blocks the whole name, since the connection could
 * otherwise be steered to it.
 */
export function decideAddresses(
  host: string,
  port: number,
  addresses: readonly ResolvedAddress[],
  allowlist: AllowList,
): TargetDecision {
  if (addresses.length === 0) return { allowed: false, reason: `the host name ${host} has no addresses` };
  if (allowlist.allowsHost(host, port)) return { allowed: true, host, port, addresses };
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.blocked && !allowlist.allowsAddress(address, port)) {
      const of = address === host ? "" : ` of ${host}`;
      return {
        allowed: false,
        reason: `the address ${address}${of} is ${verdict.reason}; only public internet addresses are allowed`,
      };
    }
  }
  return { allowed: true, host, port, addresses };
}

/**
 * The whole decision for a URL given the DNS answers for its host (pure: nothing is resolved or sent).
 * For a host that is an IP literal the answers are ignored and the literal itself is judged.
 */
export function checkTarget(input: {
  url: string | URL;
  addresses: readonly ResolvedAddress[];
  allowlist: AllowList;
}): TargetDecision {
  const parsed = readTarget(input.url);
  if (!parsed.ok) return { allowed: false, reason: parsed.reason };
  const { host, port } = parsed.target;
  const literal = literalAddress(host);
  return decideAddresses(host, port, literal ? [literal] : input.addresses, input.allowlist);
}
