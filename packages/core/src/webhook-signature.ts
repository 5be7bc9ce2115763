import { createHmac } from "node:crypto";

/**
 * `SVC-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 of "<t>.<raw body>" keyed with
 * the secret exactly as the customer sees it (its UTF-8 bytes), as Stripe does. During a rotation
 * both secrets sign, so a receiver holding either one verifies the delivery.
 */
export function webhookSignature(secrets: readonly string[], rawBody: string, unixSeconds: number): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`).digest("hex")}`,
  );
  return [`t=${unixSeconds}`, ...signatures].join(",");
}
