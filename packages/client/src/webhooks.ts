import { OctavoError } from "./errors.js";
import type { ApiJob } from "./types.js";

/** The header that carries a delivery's signature. */
export const webhookSignatureHeader = "SVC-Signature";

/** Why a delivery was refused. */
export type WebhookFailure =
  | "missing_signature"
  | "malformed_signature"
  | "timestamp_outside_tolerance"
  | "signature_mismatch"
  | "invalid_payload";

/** A delivery failed verification: do not trust its body. `reason` says which check failed. */
export class WebhookVerificationError extends OctavoError {
  override name = "WebhookVerificationError";
  constructor(
    /** Which check failed. */
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super({ error: reason, message });
  }
}

/** Options of `verifyWebhook`. */
export interface VerifyOptions {
  /**
   * Seconds the signature's time may differ from now (the replay window); 300 by default. 0 demands
   * the very second (unlike Stripe's library, where 0 turns the check off).
   */
  toleranceSeconds?: number;
  /** The current time in Unix seconds, for tests; the clock by default. */
  now?: number;
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function parseHeader(header: string): { timestamp: number; signatures: Uint8Array[] } {
  let timestamp: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const item of header.split(",")) {
    const [key, value = ""] = item.trim().split("=", 2) as [string, string?];
    if (key === "t" && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === "v1") {
      const bytes = hexBytes(value);
      if (bytes?.length === 32) signatures.push(bytes);
    }
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookVerificationError(
      "malformed_signature",
      `The ${webhookSignatureHeader} header must read t=<unix seconds>,v1=<64 hex digits>; check that the header reaches your handler unchanged.`,
    );
  }
  return { timestamp, signatures };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * Verifies a job-finished webhook and returns its job. The signature is an HMAC-SHA256 of
 * `<t>.<raw body>` under your signing secret; during a secret rotation a delivery carries one `v1=`
 * per secret, and one match is enough. Pass every secret you accept to rotate without downtime.
 * Comparison is constant-time (Web Crypto's `verify`), and a delivery signed more than
 * `toleranceSeconds` away from now is refused, so a captured delivery cannot be replayed.
 *
 * Give it the body exactly as received: the bytes, not a parsed and re-serialised object.
 *
 * @example
 * app.post("/octavo", express.raw({ type: "application/json" }), async (req, res) => {
 *   try {
 *     const job = await verifyWebhook(req.body, req.get("SVC-Signature"), process.env.OCTAVO_WEBHOOK_SECRET);
 *     console.log(job.id, job.status);
 *     res.sendStatus(204);
 *   } catch (error) {
 *     res.status(400).send(error instanceof WebhookVerificationError ? error.reason : "bad request");
 *   }
 * });
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string | readonly string[] | undefined,
  options: VerifyOptions = {},
): Promise<ApiJob> {
  const secrets = (typeof secret === "string" ? [secret] : (secret ?? [])).filter((value) => value !== "");
  // A missing secret is the receiver's own mistake, not a bad delivery: a TypeError, not a refusal.
  if (secrets.length === 0) throw new TypeError("verifyWebhook needs the signing secret from the dashboard.");
  if (!signatureHeader) {
    throw new WebhookVerificationError(
      "missing_signature",
      `No ${webhookSignatureHeader} header: the request did not come from octavo, or a proxy dropped the header.`,
    );
  }
  const { timestamp, signatures } = parseHeader(signatureHeader);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const age = now - timestamp;
  if (Math.abs(age) > tolerance) {
    const when = age > 0 ? `${age} s ago` : `${-age} s in the future`;
    throw new WebhookVerificationError(
      "timestamp_outside_tolerance",
      `The delivery was signed ${when}, outside the ${tolerance} s window: a replay, or this server's clock is wrong.`,
    );
  }
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const signed = concat(encoder.encode(`${timestamp}.`), body);
  for (const value of secrets) {
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(value),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    for (const signature of signatures) {
      if (await crypto.subtle.verify("HMAC", key, signature as BufferSource, signed as BufferSource)) {
        return parsePayload(body);
      }
    }
  }
  throw new WebhookVerificationError(
    "signature_mismatch",
    "No signature matches: check the signing secret (a rotated secret signs beside the old one for 24 h) and that the body is the raw bytes received.",
  );
}

function parsePayload(body: Uint8Array): ApiJob {
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("invalid_payload", "The signed body is not JSON.");
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new WebhookVerificationError("invalid_payload", "The signed body is not a job object.");
  }
  return payload as ApiJob;
}
