import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { apiKeyPrefixes } from "@octavo/contracts";
import type { KeyMode } from "@octavo/db";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 43 base62 characters carry 256 bits. */
const API_KEY_RANDOM_LENGTH = 43;
const API_KEY_SHAPE = new RegExp(`^svc_(live|test)_[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}}$`);

/** Unbiased base62: bytes above the largest multiple of 62 are rejected, not folded. */
function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface NewApiKey {
  /** Shown once, never stored. */
  key: string;
  /** Stored: identifies the key in lists (`svc_live_AbCd1234`, `svc_test_…`). */
  prefix: string;
  /** Stored: SHA-256 of the key. The key has 256 random bits, so a fast hash is enough. */
  hash: string;
}

export function generateApiKey(mode: KeyMode = "live"): NewApiKey {
  const prefix = apiKeyPrefixes[mode];
  const key = `${prefix}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
  return { key, prefix: key.slice(0, prefix.length + 8), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_SHAPE.test(key);
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** A purpose-specific key from the server's secret, so one leaked derived key exposes nothing else. */
export function deriveKey(secretKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secretKey, "octavo", purpose, 32));
}

/** AES-256-GCM for secrets the service must read back (webhook signing secrets). */
export function sealSecret(secretKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(secretKey, "secret-box"), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [
    "v1",
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    body.toString("base64url"),
  ].join(".");
}

export function openSecret(secretKey: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("not a sealed secret");
  const decipher = createDecipheriv(
    "aes-256-gcm",
    deriveKey(secretKey, "secret-box"),
    Buffer.from(iv, "base64url"),
  );
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

export function safeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
