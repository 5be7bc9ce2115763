import { isIP, isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];
export type AllowListEntry =
  | { kind: "host"; host: string; port: number | undefined }
  | { kind: "network"; network: Network; port: number | undefined };

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** An IPv4-mapped IPv6 address is the IPv4 host itself, so it is matched as that. */
function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

const withoutTrailingDot = (host: string): string => (host.endsWith(".") ? host.slice(0, -1) : host);

/**
 * Hosts, host:port pairs and networks an operator lets the service reach although they are private
 * (OCTAVO_URL_ALLOWLIST). Built by parseAllowlist; empty by default.
 */
export class AllowList {
  readonly #entries: readonly AllowListEntry[];

  constructor(entries: readonly AllowListEntry[] = []) {
    this.#entries = entries;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** A host name entry (with no port, or this port) lets every address of the name through. */
  allowsHost(host: string, port: number): boolean {
    const name = withoutTrailingDot(host.toLowerCase());
    return this.#entries.some(
      (entry) =>
        entry.kind === "host" && entry.host === name && (entry.port === undefined || entry.port === port),
    );
  }

  /** A CIDR, a bare IP or an IP:port entry lets this one address through. */
  allowsAddress(address: string, port: number): boolean {
    if (isIP(address) === 0) return false;
    const parsed = unmapped(ipaddr.parse(address));
    return this.#entries.some(
      (entry) =>
        entry.kind === "network" &&
        entry.network[0].kind() === parsed.kind() &&
        parsed.match(entry.network) &&
        (entry.port === undefined || entry.port === port),
    );
  }
}

function parsePort(text: string, entry: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65535) throw invalid(entry, `"${text}" is not a port (1-65535)`);
  return port;
}

function invalid(entry: string, why: string): Error {
  return new Error(
    `OCTAVO_URL_ALLOWLIST: the entry "${entry}" is not valid: ${why}. ` +
      "Write host names (files.internal), host:port (files.internal:8443, 127.0.0.1:9000, [::1]:9000) " +
      "or networks (10.1.0.0/16, fd00::/8), separated by commas.",
  );
}

function parseNetwork(text: string, entry: string): Network {
  // Strict forms only: ipaddr.js (like the URL parser) would also read "0x7f.1" or "127.1".
  const [address = "", prefix = ""] = text.split("/");
  if (!isIPv4(address) && !isIPv6(address)) throw invalid(entry, `"${address}" is not an IP address`);
  if (!/^\d{1,3}$/.test(prefix)) throw invalid(entry, `"/${prefix}" is not a prefix length`);
  const bits = Number(prefix);
  const max = isIPv4(address) ? 32 : 128;
  if (bits > max) throw invalid(entry, `the prefix length /${bits} is over ${max}`);
  const parsed = ipaddr.parse(address);
  // A ::ffff:a.b.c.d/104 network is the IPv4 network a.b.c.d/8, and addresses are matched unmapped.
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() && bits >= 96) {
    return [parsed.toIPv4Address(), bits - 96];
  }
  return [parsed, bits];
}

function addressEntry(address: string, port: number | undefined): AllowListEntry {
  const parsed = unmapped(ipaddr.parse(address));
  return { kind: "network", network: [parsed, parsed.kind() === "ipv4" ? 32 : 128], port };
}

function parseHostName(text: string, entry: string): string {
  const url = URL.parse(`http://${text}/`);
  const host = url?.hostname;
  if (!host || url.host !== host || /[/?#@\\]/.test(text))
    throw invalid(entry, `"${text}" is not a host name`);
  // The URL parser reads "0x7f.1" or "2130706433" as 127.0.0.1; an allowlist should say what it means.
  if (isIP(host)) throw invalid(entry, `write the address ${host} in its usual form`);
  const name = withoutTrailingDot(host);
  if (name.length > 253 || !name.split(".").every((label) => LABEL.test(label))) {
    throw invalid(entry, `"${text}" is not a host name`);
  }
  return name;
}

function parseEntry(entry: string): AllowListEntry {
  if (entry.includes("://")) throw invalid(entry, "write the host without http:// or a path");
  if (entry.includes("/")) {
    return { kind: "network", network: parseNetwork(entry, entry), port: undefined };
  }
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const [, address = "", port] = bracketed;
    if (!isIPv6(address)) throw invalid(entry, `"${address}" is not an IPv6 address`);
    return addressEntry(address, port === undefined ? undefined : parsePort(port, entry));
  }
  if (isIPv6(entry)) return addressEntry(entry, undefined);
  const colon = entry.lastIndexOf(":");
  const host = colon === -1 ? entry : entry.slice(0, colon);
  const port = colon === -1 ? undefined : parsePort(entry.slice(colon + 1), entry);
  if (isIPv4(host)) return addressEntry(host, port);
  return { kind: "host", host: parseHostName(host, entry), port };
}

/**
 * Reads OCTAVO_URL_ALLOWLIST: comma-separated host names, host:port pairs, IP addresses and CIDR
 * networks. Throws an Error naming the first bad entry, so a typo stops start-up instead of silently
 * allowing nothing (or too much).
 */
export function parseAllowlist(value: string | undefined): AllowList {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map(parseEntry);
  return new AllowList(entries);
}
