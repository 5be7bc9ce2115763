import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** `range` is the CIDR (or name) that matched; `reason` completes "the address … is …". */
export type AddressClass = { blocked: false } | { blocked: true; range: string; reason: string };

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = { cidr: string; net: [Address, number]; what: string };

const ranges = (list: readonly (readonly [string, string])[]): Range[] =>
  list.map(([cidr, what]) => ({ cidr, net: ipaddr.parseCIDR(cidr), what }));

// First match wins. Every IPv4 range ipaddr.js does not call "unicast" is here, with a CIDR to name in
// messages; the ipaddr.js check below stays as a safety net for ranges a later version adds.
const IPV4_BLOCKED = ranges([
  ["0.0.0.0/8", 'the unspecified ("this network") range'],
  ["10.0.0.0/8", "a private network"],
  ["100.64.0.0/10", "the carrier-grade NAT range"],
  ["127.0.0.0/8", "the loopback range"],
  ["169.254.0.0/16", "the link-local range, where cloud metadata services live"],
  ["172.16.0.0/12", "a private network"],
  ["192.0.0.0/24", "the IETF protocol assignments range"],
  ["192.0.2.0/24", "a documentation range"],
  ["192.31.196.0/24", "the AS112 DNS range"],
  ["192.52.193.0/24", "the AMT relay range"],
  ["192.88.99.0/24", "the 6to4 relay range"],
  ["192.168.0.0/16", "a private network"],
  ["192.175.48.0/24", "the AS112 DNS range"],
  ["198.18.0.0/15", "the benchmarking range"],
  ["198.51.100.0/24", "a documentation range"],
  ["203.0.113.0/24", "a documentation range"],
  ["224.0.0.0/4", "the multicast range"],
  ["255.255.255.255/32", "the broadcast address"],
  ["240.0.0.0/4", "the reserved range"],
]);

const IPV6_BLOCKED = ranges([
  ["::/128", "the unspecified address"],
  ["::1/128", "the loopback address"],
  ["::ffff:0:0:0/96", "the IPv4-translated range"],
  ["64:ff9b:1::/48", "the local-use NAT64 range"],
  ["100::/64", "the discard range"],
  ["2001::/32", "the Teredo tunnelling range"],
  ["2001:2::/48", "the benchmarking range"],
  ["2001:db8::/32", "a documentation range"],
  ["2001::/23", "the IETF protocol assignments range"],
  ["3fff::/20", "a documentation range"],
  ["5f00::/16", "the segment routing range"],
  ["fc00::/7", "a private network (unique local addresses)"],
  ["fe80::/10", "the link-local range"],
  ["fec0::/10", "the deprecated site-local range"],
  ["ff00::/8", "the multicast range"],
]);

const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");

const v4FromParts = (high: number | undefined, low: number | undefined): ipaddr.IPv4 =>
  new ipaddr.IPv4([
    ((high ?? 0) >> 8) & 0xff,
    (high ?? 0) & 0xff,
    ((low ?? 0) >> 8) & 0xff,
    (low ?? 0) & 0xff,
  ]);

/**
 * IPv6 forms that carry an IPv4 address reach (or are translated to) that IPv4 host, so they are judged
 * as it: each was an SSRF bypass in a peer (Gotenberg 2026: mapped, NAT64, 6to4).
 */
function embeddedIPv4(address: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | undefined {
  if (address.isIPv4MappedAddress()) return { v4: address.toIPv4Address(), form: "an IPv4-mapped form" };
  if (address.match(NAT64))
    return { v4: v4FromParts(address.parts[6], address.parts[7]), form: "a NAT64 form" };
  if (address.match(SIX_TO_FOUR))
    return { v4: v4FromParts(address.parts[1], address.parts[2]), form: "a 6to4 form" };
  return undefined;
}

function firstMatch(address: Address, list: readonly Range[]): Range | undefined {
  return list.find((range) => address.kind() === range.net[0].kind() && address.match(range.net));
}

function classifyV4(address: ipaddr.IPv4): AddressClass {
  const hit = firstMatch(address, IPV4_BLOCKED);
  if (hit) return { blocked: true, range: hit.cidr, reason: `in ${hit.what} (${hit.cidr})` };
  const name = address.range();
  if (name !== "unicast")
    return { blocked: true, range: name, reason: `in a special-purpose range (${name})` };
  return { blocked: false };
}

function classifyV6(address: ipaddr.IPv6): AddressClass {
  const embedded = embeddedIPv4(address);
  if (embedded) {
    const inner = classifyV4(embedded.v4);
    if (!inner.blocked) return inner;
    return { ...inner, reason: `${embedded.form} of ${embedded.v4.toString()}, which is ${inner.reason}` };
  }
  const hit = firstMatch(address, IPV6_BLOCKED);
  if (hit) return { blocked: true, range: hit.cidr, reason: `in ${hit.what} (${hit.cidr})` };
  // Only 2000::/3 is handed out as global unicast; the rest (IPv4-compatible ::a.b.c.d, unassigned
  // space) has no business being a download source.
  if (!address.match(GLOBAL_UNICAST)) {
    return { blocked: true, range: "2000::/3", reason: "outside the global unicast range (2000::/3)" };
  }
  const name = address.range();
  if (name !== "unicast")
    return { blocked: true, range: name, reason: `in a special-purpose range (${name})` };
  return { blocked: false };
}

/**
 * Says whether an address may be reached from the service. Takes the canonical text forms DNS and the
 * URL parser produce (dotted quad, IPv6 text); anything else is blocked, so the policy fails closed.
 */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 4) return classifyV4(ipaddr.IPv4.parse(ip));
  if (family === 6) return classifyV6(ipaddr.IPv6.parse(ip));
  return { blocked: true, range: "invalid", reason: "not an IP address" };
}
