import { describe, expect, it } from "vitest";
import {
  billingPeriodOf,
  FileLinkSigner,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  openSecret,
  sealSecret,
} from "../src/index.js";

const secret = "k".repeat(43);

describe("API keys", () => {
  it("are svc_live_ plus 43 base62 characters (256 bits), with a hash and a display prefix", () => {
    const keys = Array.from({ length: 50 }, () => generateApiKey());
    for (const { key, prefix, hash } of keys) {
      expect(key).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(key.startsWith(prefix)).toBe(true);
      expect(prefix).toHaveLength(17);
      expect(hash).toBe(hashApiKey(key));
      expect(hash).not.toContain(key.slice(9));
    }
    expect(new Set(keys.map((entry) => entry.key)).size).toBe(50);
    expect(isWellFormedApiKey("svc_live_short")).toBe(false);
  });
});

describe("sealed secrets", () => {
  it("round-trip under the server key and fail under another or when tampered with", () => {
    const sealed = sealSecret(secret, "whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(openSecret(secret, sealed)).toBe("whsec_abc");
    expect(() => openSecret("x".repeat(43), sealed)).toThrow();
    const parts = sealed.split(".");
    const body = parts[3] ?? "";
    parts[3] = `${body[0] === "A" ? "B" : "A"}${body.slice(1)}`;
    const tampered = parts.join(".");
    expect(() => openSecret(secret, tampered)).toThrow();
  });
});

describe("download links", () => {
  const signer = new FileLinkSigner(secret, "https://pdf.example.com", 900);
  const now = new Date("2026-11-23T10:00:00Z");

  it("carry an expiry and a signature bound to the file", () => {
    const { url, expiresAt } = signer.sign("file-1", "report p1.pdf", now);
    expect(expiresAt).toBe("2026-11-23T10:15:00.000Z");
    const parsed = new URL(url);
    expect(parsed.pathname).toBe("/v1/files/file-1/report%20p1.pdf");
    const expires = parsed.searchParams.get("expires");
    const signature = parsed.searchParams.get("signature");
    expect(signer.verify("file-1", expires, signature, now)).toBe("valid");
    expect(signer.verify("file-2", expires, signature, now)).toBe("forged");
    expect(signer.verify("file-1", String(Number(expires) + 3600), signature, now)).toBe("forged");
    expect(signer.verify("file-1", expires, "00", now)).toBe("forged");
    expect(signer.verify("file-1", undefined, signature, now)).toBe("forged");
    expect(signer.verify("file-1", expires, signature, new Date("2026-11-23T10:15:01Z"))).toBe("expired");
    expect(
      new FileLinkSigner("o".repeat(43), "https://x", 900).verify("file-1", expires, signature, now),
    ).toBe("forged");
  });
});

describe("billing periods", () => {
  it("are calendar months in UTC", () => {
    expect(billingPeriodOf(new Date("2026-12-31T23:59:59Z"))).toEqual({
      start: "2026-12-01T00:00:00.000Z",
      end: "2027-01-01T00:00:00.000Z",
    });
  });
});
