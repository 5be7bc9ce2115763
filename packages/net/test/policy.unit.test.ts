import { describe, expect, it } from "vitest";
import {
  type AllowList,
  checkTarget,
  classifyAddress,
  parseAllowlist,
  type ResolvedAddress,
} from "../src/index.js";

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });
const answer = (address: string): ResolvedAddress => (address.includes(":") ? v6(address) : v4(address));
const none = parseAllowlist(undefined);

/** The policy for files.example.com given these DNS answers; nothing is resolved or sent. */
const decide = (addresses: string[], allowlist: AllowList = none, url = "https://files.example.com/a.pdf") =>
  checkTarget({ url, addresses: addresses.map(answer), allowlist });

describe("classifyAddress", () => {
  it.each([
    ["10.0.0.1", "10.0.0.0/8", "a private network"],
    ["172.16.5.4", "172.16.0.0/12", "a private network"],
    ["192.168.1.1", "192.168.0.0/16", "a private network"],
    ["169.254.169.254", "169.254.0.0/16", "link-local"],
    ["100.64.0.1", "100.64.0.0/10", "carrier-grade NAT"],
    ["127.0.0.1", "127.0.0.0/8", "loopback"],
    ["0.0.0.0", "0.0.0.0/8", "unspecified"],
    ["224.0.0.1", "224.0.0.0/4", "multicast"],
    ["255.255.255.255", "255.255.255.255/32", "broadcast"],
    ["198.18.0.1", "198.18.0.0/15", "benchmarking"],
    ["192.0.2.1", "192.0.2.0/24", "documentation"],
    ["192.88.99.1", "192.88.99.0/24", "6to4 relay"],
    ["240.0.0.1", "240.0.0.0/4", "reserved"],
    ["fd00::1", "fc00::/7", "unique local"],
    ["fe80::1", "fe80::/10", "link-local"],
    ["::1", "::1/128", "loopback"],
    ["::", "::/128", "unspecified"],
    ["ff02::1", "ff00::/8", "multicast"],
    ["2001:db8::1", "2001:db8::/32", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/32", "Teredo"],
    ["::ffff:10.0.0.1", "10.0.0.0/8", "IPv4-mapped form of 10.0.0.1"],
    ["::ffff:169.254.169.254", "169.254.0.0/16", "IPv4-mapped form of 169.254.169.254"],
    ["::ffff:7f00:1", "127.0.0.0/8", "IPv4-mapped form of 127.0.0.1"],
    ["64:ff9b::a00:1", "10.0.0.0/8", "NAT64 form of 10.0.0.1"],
    ["2002:a00:1::1", "10.0.0.0/8", "6to4 form of 10.0.0.1"],
    ["::7f00:1", "2000::/3", "outside the global unicast range"],
    ["fe80::1%lo", "fe80::/10", "link-local"],
  ])("blocks %s (%s)", (ip, range, words) => {
    const verdict = classifyAddress(ip);
    expect(verdict).toMatchObject({ blocked: true, range });
    expect(verdict.blocked && verdict.reason).toContain(words);
  });

  it.each([
    "93.184.216.34",
    "2606:2800:220:1:248:1893:25c7:1946",
    "::ffff:93.184.216.34",
    "64:ff9b::5db8:d822",
  ])("allows the public address %s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ blocked: false });
  });

  it.each(["", "localhost", "0x7f.1", "2130706433", "127.1", "1.2.3.4.5"])(
    "fails closed on %j, which is not a canonical IP address",
    (text) => {
      expect(classifyAddress(text)).toMatchObject({ blocked: true, range: "invalid" });
    },
  );
});

describe("checkTarget", () => {
  it("allows a name whose answers are all public", () => {
    expect(decide(["93.184.216.34", "2606:2800:220:1:248:1893:25c7:1946"])).toMatchObject({
      allowed: true,
      host: "files.example.com",
      port: 443,
    });
  });

  it("blocks a name if any answer is private, naming the address, the host and the range", () => {
    expect(decide(["93.184.216.34", "10.0.0.1"])).toEqual({
      allowed: false,
      reason:
        "the address 10.0.0.1 of files.example.com is in a private network (10.0.0.0/8); " +
        "only public internet addresses are allowed",
    });
    expect(decide(["169.254.169.254"])).toMatchObject({ allowed: false });
  });

  it("judges an IP host by its normalised address, whatever the answers say", () => {
    for (const url of [
      "http://2130706433/",
      "http://0x7f.1/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[::1]/",
      "http://0/",
      "HTTP://10.0.0.1/",
    ]) {
      expect(decide(["93.184.216.34"], none, url), url).toMatchObject({ allowed: false });
    }
    expect(decide([], none, "http://93.184.216.34:8080/x")).toMatchObject({
      allowed: true,
      port: 8080,
      addresses: [{ address: "93.184.216.34", family: 4 }],
    });
  });

  it("takes http and https only, in any letter case", () => {
    expect(decide(["93.184.216.34"], none, "HTTPS://files.example.com/")).toMatchObject({ allowed: true });
    for (const url of ["ftp://files.example.com/a.pdf", "file:///etc/passwd", "gopher://x/", "data:,hi"]) {
      const decision = decide(["93.184.216.34"], none, url);
      expect(decision).toMatchObject({ allowed: false });
      expect(!decision.allowed && decision.reason).toMatch(/^only http and https URLs are allowed/);
    }
  });

  it("refuses credentials in the URL and URLs that do not parse", () => {
    expect(decide(["93.184.216.34"], none, "https://user:pw@files.example.com/")).toMatchObject({
      allowed: false,
      reason: expect.stringContaining("user name or password"),
    });
    expect(decide(["93.184.216.34"], none, "not a url")).toMatchObject({ allowed: false });
  });

  it("blocks a name with no answers", () => {
    expect(decide([])).toMatchObject({ allowed: false, reason: expect.stringContaining("no addresses") });
  });
});

describe("parseAllowlist", () => {
  it("is empty by default", () => {
    expect(parseAllowlist(undefined).size).toBe(0);
    expect(parseAllowlist("").size).toBe(0);
    expect(parseAllowlist(" , ").size).toBe(0);
  });

  it("lets a CIDR through, for its addresses only", () => {
    const allow = parseAllowlist("10.1.0.0/16, fd00::/8");
    expect(decide(["10.1.2.3"], allow)).toMatchObject({ allowed: true });
    expect(decide(["fd00::1"], allow)).toMatchObject({ allowed: true });
    expect(decide(["::ffff:10.1.2.3"], allow)).toMatchObject({ allowed: true });
    expect(decide(["10.1.2.3", "10.2.0.1"], allow)).toMatchObject({ allowed: false });
    expect(decide(["169.254.169.254"], allow)).toMatchObject({ allowed: false });
  });

  it("lets a host name through on any port, and host:port on that port only", () => {
    const allow = parseAllowlist("Files.Internal,media.internal:8443");
    expect(decide(["10.0.0.1"], allow, "http://files.internal/a.pdf")).toMatchObject({ allowed: true });
    expect(decide(["10.0.0.1"], allow, "http://files.internal.:81/a.pdf")).toMatchObject({ allowed: true });
    expect(decide(["10.0.0.1"], allow, "https://media.internal:8443/")).toMatchObject({ allowed: true });
    expect(decide(["10.0.0.1"], allow, "https://media.internal/")).toMatchObject({ allowed: false });
    expect(decide(["10.0.0.1"], allow, "https://other.internal/")).toMatchObject({ allowed: false });
  });

  it("lets IP:port entries through in every notation of that address", () => {
    const allow = parseAllowlist("127.0.0.1:9000,[::1]:9000");
    for (const url of [
      "http://127.0.0.1:9000/",
      "http://2130706433:9000/",
      "http://[::ffff:127.0.0.1]:9000/",
    ]) {
      expect(decide([], allow, url), url).toMatchObject({ allowed: true });
    }
    expect(decide([], allow, "http://[::1]:9000/")).toMatchObject({ allowed: true });
    expect(decide([], allow, "http://127.0.0.1:9001/")).toMatchObject({ allowed: false });
    expect(decide([], allow, "http://127.0.0.2:9000/")).toMatchObject({ allowed: false });
    expect(decide(["127.0.0.1"], allow, "http://loopback.test:9000/")).toMatchObject({ allowed: true });
  });

  it("takes bare IP addresses as single-address networks", () => {
    const allow = parseAllowlist("192.168.1.10,fd00::5");
    expect(decide(["192.168.1.10"], allow)).toMatchObject({ allowed: true });
    expect(decide(["192.168.1.11"], allow)).toMatchObject({ allowed: false });
    expect(decide(["fd00::5"], allow)).toMatchObject({ allowed: true });
  });

  it.each([
    ["10.0.0.0/33", "prefix length"],
    ["10.0.0/8", "not an IP address"],
    ["fd00::/129", "prefix length"],
    ["files.internal:0", "not a port"],
    ["files.internal:99999", "not a port"],
    ["files.internal:", "not a port"],
    ["[::1]:x", "not a port"],
    ["[10.0.0.1]:80", "not an IPv6 address"],
    ["0x7f.1", "usual form"],
    ["2130706433:80", "usual form"],
    ["bad host", "not a host name"],
    ["user@files.internal", "not a host name"],
    ["http://files.internal", "without http://"],
    ["-bad.internal", "not a host name"],
  ])("rejects %j, naming the entry", (entry, why) => {
    expect(() => parseAllowlist(`files.internal,${entry}`)).toThrow(`"${entry}"`);
    expect(() => parseAllowlist(entry)).toThrow(why);
  });
});
