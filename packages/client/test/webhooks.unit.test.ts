import { createHmac } from "node:crypto";
import { rejectionOf } from "@octavo/testing";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import {
  verifyWebhook,
  type WebhookFailure,
  WebhookVerificationError,
  webhookSignatureHeader,
} from "../src/index.js";

// Stripe's library is an independent implementation of the same scheme: "t=<unix>,v1=<hex HMAC-SHA256
// of '<t>.<raw body>'>". Constructing it needs a key string; nothing here goes to the network.
const stripe = new Stripe("sk_test_octavo");
const { signature } = Stripe.webhooks;
if (!signature) throw new Error("stripe's signature helper is missing");

const secret = "whsec_0123456789abcdef0123456789abcdef";
const otherSecret = "whsec_fedcba9876543210fedcba9876543210";
const job = {
  id: "6f1c2a57-9c3e-4d0b-8a51-0b7d3c2e9f10",
  status: "done",
  progress: 1,
  operation: "merge",
  outputs: [{ name: "merged.pdf", size: 1234, contentType: "application/pdf", url: "https://x.example/f" }],
};
const body = JSON.stringify(job);
const now = 1_760_000_000;

/** The spec's recipe, written with node:crypto: hex HMAC-SHA256 of "<t>.<raw body>". */
function v1(payload: string | Uint8Array, key: string, t: number): string {
  return createHmac("sha256", key).update(`${t}.`).update(payload).digest("hex");
}

/** Verifies at `now` and returns the failure; fails the test when verification succeeds. */
async function failure(
  payload: string | Uint8Array,
  header: string | null | undefined,
  keys: string | readonly string[] = secret,
  options: { toleranceSeconds?: number; now?: number } = { now },
): Promise<WebhookVerificationError> {
  return rejectionOf(verifyWebhook(payload, header, keys, options), WebhookVerificationError);
}

describe("verifyWebhook against Stripe's verifier", () => {
  it("accepts headers that Stripe's library generates", async () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now });
    expect(header).toBe(`t=${now},v1=${v1(body, secret, now)}`);
    expect(await verifyWebhook(body, header, secret, { now })).toEqual(job);

    const current = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    expect(await verifyWebhook(body, current, secret)).toEqual(job);
  });

  it("signs in a format Stripe's verifier accepts, with one v1 or several", () => {
    const header = `t=${now},v1=${v1(body, secret, now)}`;
    const receivedAt = now * 1000;
    expect(signature.verifyHeader(body, header, secret, 300, undefined, receivedAt)).toBe(true);
    expect(stripe.webhooks.constructEvent(body, header, secret, 300, undefined, receivedAt)).toEqual(job);

    const rotated = `t=${now},v1=${v1(body, otherSecret, now)},v1=${v1(body, secret, now)}`;
    for (const key of [secret, otherSecret]) {
      expect(signature.verifyHeader(body, rotated, key, 300, undefined, receivedAt)).toBe(true);
    }
    expect(() => signature.verifyHeader(body, rotated, "whsec_neither", 300, undefined, receivedAt)).toThrow(
      /No signatures found matching/,
    );
  });

  it("refuses what Stripe's verifier refuses: a changed body, a wrong secret, an old timestamp", async () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now });
    const changed = body.replace('"done"', '"Done"');
    const receivedAt = now * 1000;
    expect(() => signature.verifyHeader(changed, header, secret, 300, undefined, receivedAt)).toThrow();
    expect((await failure(changed, header)).reason).toBe("signature_mismatch");
    expect(() => signature.verifyHeader(body, header, otherSecret, 300, undefined, receivedAt)).toThrow();
    expect((await failure(body, header, otherSecret)).reason).toBe("signature_mismatch");
    const late = receivedAt + 301_000;
    expect(() => signature.verifyHeader(body, header, secret, 300, undefined, late)).toThrow(/tolerance/);
    expect((await failure(body, header, secret, { now: now + 301 })).reason).toBe(
      "timestamp_outside_tolerance",
    );
  });
});

describe("verifyWebhook failures", () => {
  const good = `t=${now},v1=${v1(body, secret, now)}`;
  const cases: {
    name: string;
    payload: string;
    header: string | null | undefined;
    reason: WebhookFailure;
    says: RegExp;
  }[] = [
    {
      name: "no header (undefined)",
      payload: body,
      header: undefined,
      reason: "missing_signature",
      says: /SVC-Signature/,
    },
    {
      name: "no header (null)",
      payload: body,
      header: null,
      reason: "missing_signature",
      says: /SVC-Signature/,
    },
    {
      name: "an empty header",
      payload: body,
      header: "",
      reason: "missing_signature",
      says: /SVC-Signature/,
    },
    {
      name: "not key=value pairs",
      payload: body,
      header: "garbage",
      reason: "malformed_signature",
      says: /t=.*v1=/,
    },
    {
      name: "no timestamp",
      payload: body,
      header: `v1=${v1(body, secret, now)}`,
      reason: "malformed_signature",
      says: /t=.*v1=/,
    },
    {
      name: "a timestamp that is not a number",
      payload: body,
      header: `t=soon,v1=${v1(body, secret, now)}`,
      reason: "malformed_signature",
      says: /t=<unix seconds>/,
    },
    { name: "no v1", payload: body, header: `t=${now}`, reason: "malformed_signature", says: /v1=/ },
    {
      name: "only another scheme",
      payload: body,
      header: `t=${now},v0=${v1(body, secret, now)}`,
      reason: "malformed_signature",
      says: /v1=/,
    },
    {
      name: "a v1 that is not hex",
      payload: body,
      header: `t=${now},v1=${"zz".repeat(32)}`,
      reason: "malformed_signature",
      says: /hex/,
    },
    {
      name: "a v1 that is too short",
      payload: body,
      header: `t=${now},v1=${v1(body, secret, now).slice(0, 40)}`,
      reason: "malformed_signature",
      says: /64 hex/,
    },
    {
      name: "a timestamp 301 s old",
      payload: body,
      header: `t=${now - 301},v1=${v1(body, secret, now - 301)}`,
      reason: "timestamp_outside_tolerance",
      says: /300 s.*clock/,
    },
    {
      name: "a timestamp 301 s ahead",
      payload: body,
      header: `t=${now + 301},v1=${v1(body, secret, now + 301)}`,
      reason: "timestamp_outside_tolerance",
      says: /300 s.*clock/,
    },
    {
      name: "a signature made with another secret",
      payload: body,
      header: `t=${now},v1=${v1(body, otherSecret, now)}`,
      reason: "signature_mismatch",
      says: /secret.*raw bytes/,
    },
    {
      name: "a tampered body",
      payload: body.replace("1234", "1235"),
      header: good,
      reason: "signature_mismatch",
      says: /secret.*raw bytes/,
    },
    {
      name: "a re-serialised body (whitespace added)",
      payload: JSON.stringify(job, null, 2),
      header: good,
      reason: "signature_mismatch",
      says: /raw bytes/,
    },
    {
      name: "a signed body that is not JSON",
      payload: "id=1&status=done",
      header: `t=${now},v1=${v1("id=1&status=done", secret, now)}`,
      reason: "invalid_payload",
      says: /JSON/,
    },
  ];

  it.each(cases)("$name: $reason", async ({ payload, header, reason, says }) => {
    const error = await failure(payload, header);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.reason).toBe(reason);
    expect(error.error).toBe(reason);
    expect(error.message).toMatch(says);
    // A message that ends up in a log must not carry the secret.
    expect(error.message).not.toContain(secret);
  });

  it("keeps the replay window at exactly 300 s either way by default", async () => {
    for (const t of [now - 300, now + 300]) {
      expect(await verifyWebhook(body, `t=${t},v1=${v1(body, secret, t)}`, secret, { now })).toEqual(job);
    }
  });

  it("needs a secret", async () => {
    await expect(verifyWebhook(body, good, [], { now })).rejects.toThrow(/secret/);
    await expect(verifyWebhook(body, good, "", { now })).rejects.toThrow(/secret/);
  });
});

describe("verifyWebhook inputs and options", () => {
  it("accepts any matching v1 of several, and any of several secrets (rotation)", async () => {
    const both = `t=${now},v1=${v1(body, otherSecret, now)},v1=${v1(body, secret, now)}`;
    expect(await verifyWebhook(body, both, secret, { now })).toEqual(job);
    expect(await verifyWebhook(body, both, otherSecret, { now })).toEqual(job);

    const onlyNew = `t=${now},v1=${v1(body, otherSecret, now)}`;
    expect(await verifyWebhook(body, onlyNew, [secret, otherSecret], { now })).toEqual(job);
    expect(await verifyWebhook(body, onlyNew, [otherSecret, secret], { now })).toEqual(job);
    expect((await failure(body, onlyNew, [secret, "whsec_neither"])).reason).toBe("signature_mismatch");
    // A v1 that is malformed next to a good one is ignored, not fatal.
    expect(
      await verifyWebhook(body, `t=${now},v1=nothex,v1=${v1(body, secret, now)}`, secret, { now }),
    ).toEqual(job);
  });

  it("verifies string, Uint8Array and Buffer bodies alike, including non-ASCII text", async () => {
    const unicode = JSON.stringify({ ...job, outputs: [{ ...job.outputs[0], name: "résumé – 東京.pdf" }] });
    const bytes = new TextEncoder().encode(unicode);
    const header = `t=${now},v1=${v1(bytes, secret, now)}`;
    const expected = JSON.parse(unicode) as unknown;
    expect(await verifyWebhook(unicode, header, secret, { now })).toEqual(expected);
    expect(await verifyWebhook(bytes, header, secret, { now })).toEqual(expected);
    expect(await verifyWebhook(Buffer.from(bytes), header, secret, { now })).toEqual(expected);
    // A view into a larger buffer: only its own bytes count.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    expect(await verifyWebhook(padded.subarray(4, 4 + bytes.length), header, secret, { now })).toEqual(
      expected,
    );
    // The same text in another encoding is another body.
    const latin1 = Buffer.from(unicode, "latin1");
    expect((await failure(latin1, header)).reason).toBe("signature_mismatch");
  });

  it("honours toleranceSeconds and now", async () => {
    const t = now - 1_000;
    const header = `t=${t},v1=${v1(body, secret, t)}`;
    expect((await failure(body, header)).reason).toBe("timestamp_outside_tolerance");
    expect(await verifyWebhook(body, header, secret, { now, toleranceSeconds: 1_000 })).toEqual(job);
    expect((await failure(body, header, secret, { now, toleranceSeconds: 999 })).reason).toBe(
      "timestamp_outside_tolerance",
    );
    expect((await failure(body, header, secret, { now, toleranceSeconds: 999 })).message).toMatch(/999 s/);
    expect(await verifyWebhook(body, header, secret, { now: t + 300 })).toEqual(job);
    expect((await failure(body, header, secret, { now: t + 301 })).reason).toBe(
      "timestamp_outside_tolerance",
    );
    // Without `now`, the clock: a header signed now verifies, one signed an hour ago does not.
    const clock = Math.floor(Date.now() / 1000);
    expect(await verifyWebhook(body, `t=${clock},v1=${v1(body, secret, clock)}`, secret)).toEqual(job);
    const hourAgo = clock - 3_600;
    expect((await failure(body, `t=${hourAgo},v1=${v1(body, secret, hourAgo)}`, secret, {})).reason).toBe(
      "timestamp_outside_tolerance",
    );
  });

  it("names the header it reads", () => {
    expect(webhookSignatureHeader).toBe("SVC-Signature");
  });
});
