import { createServer, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { Octavo, verifyWebhook, WebhookVerificationError } from "@octavo/client";
import { rejectionOf, waitFor } from "@octavo/testing";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.js";

const examples = join(import.meta.dirname, "..", "..", "..", "examples");
const samples = [join(examples, "sample-a.pdf"), join(examples, "sample-b.pdf")];
// Stripe's verifier is an independent implementation of the same scheme (t=<unix>,v1=<hex HMAC>).
const stripe = new Stripe("sk_test_octavo");

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The bytes as they arrived: the signature covers exactly these. */
  body: Buffer;
}

/** A loopback receiver that answers 204 and keeps every delivery's raw bytes and headers. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      deliveries.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    deliveryTo: (path: string) =>
      waitFor(`the webhook to ${path}`, () => deliveries.find((delivery) => delivery.path === path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function signatureOf(delivery: Delivery): string {
  const header = delivery.headers["svc-signature"];
  if (typeof header !== "string") throw new Error("the delivery has no SVC-Signature header");
  return header;
}

/** Stripe's own check: throws on a bad signature, returns the parsed body on a good one. */
function stripeAccepts(body: Buffer, header: string, secret: string): unknown {
  return stripe.webhooks.constructEvent(body, header, secret);
}

describe("@octavo/client verifyWebhook on deliveries the service sent", () => {
  let stack: Stack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it("verifies a job-finished delivery, as Stripe's verifier does, and refuses any change", async () => {
    const account = await stack.createAccount("business");
    const client = new Octavo({ apiKey: account.apiKey, baseUrl: stack.baseUrl });
    const created = await client.merge(samples, {}, { webhookUrl: `${receiver.url}/first` });
    const delivery = await receiver.deliveryTo("/first");
    const header = signatureOf(delivery);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const job = await verifyWebhook(delivery.body, header, account.webhookSecret);
    expect(job).toMatchObject({ id: created.id, status: "done" });
    expect(job.outputs?.map((output) => output.name)).toEqual(["merged.pdf"]);
    const polled = await client.jobs.get(created.id);
    expect(polled.status).toBe("done");
    expect(job.outputs?.map((output) => output.size)).toEqual(polled.outputs?.map((output) => output.size));
    // The same bytes as a string verify too.
    await expect(
      verifyWebhook(delivery.body.toString("utf8"), header, account.webhookSecret),
    ).resolves.toMatchObject({ id: created.id });

    expect(stripeAccepts(delivery.body, header, account.webhookSecret)).toEqual(
      JSON.parse(delivery.body.toString()),
    );

    // A space appended: the same JSON to a parser, a different body to the signature.
    const tampered = Buffer.concat([delivery.body, Buffer.from(" ")]);
    const changed = await rejectionOf(
      verifyWebhook(tampered, header, account.webhookSecret),
      WebhookVerificationError,
    );
    expect(changed.reason).toBe("signature_mismatch");
    expect(() => stripeAccepts(tampered, header, account.webhookSecret)).toThrow(/signature/i);
    // One byte flipped, still valid JSON: "done" becomes "Done".
    const flipped = Buffer.from(delivery.body);
    const status = flipped.indexOf('"status":"done"');
    expect(status).toBeGreaterThan(0);
    flipped[status + '"status":"'.length] = "D".charCodeAt(0);
    expect(
      (await rejectionOf(verifyWebhook(flipped, header, account.webhookSecret), WebhookVerificationError))
        .reason,
    ).toBe("signature_mismatch");

    const wrongSecret = await rejectionOf(
      verifyWebhook(delivery.body, header, "whsec_not_this_accounts_secret"),
      WebhookVerificationError,
    );
    expect(wrongSecret.reason).toBe("signature_mismatch");
    expect(() => stripeAccepts(delivery.body, header, "whsec_not_this_accounts_secret")).toThrow(
      /signature/i,
    );
  });

  it("after a rotation, signs with both secrets and either one verifies", async () => {
    const account = await stack.createAccount("business");
    const rotated = await stack.runtime.accounts.rotateWebhookSecret(account.accountId);
    expect(rotated.webhookSecret).not.toBe(account.webhookSecret);
    const client = new Octavo({ apiKey: account.apiKey, baseUrl: stack.baseUrl });
    const created = await client.merge(samples, {}, { webhookUrl: `${receiver.url}/rotated` });
    const delivery = await receiver.deliveryTo("/rotated");
    const header = signatureOf(delivery);
    expect(header.match(/v1=[0-9a-f]{64}/g)).toHaveLength(2);

    for (const secret of [account.webhookSecret, rotated.webhookSecret]) {
      await expect(verifyWebhook(delivery.body, header, secret)).resolves.toMatchObject({
        id: created.id,
        status: "done",
      });
      expect(stripeAccepts(delivery.body, header, secret)).toMatchObject({ id: created.id });
    }
    // A receiver mid-switch holds both; one that holds neither is refused.
    await expect(
      verifyWebhook(delivery.body, header, ["whsec_unrelated", rotated.webhookSecret]),
    ).resolves.toMatchObject({ id: created.id });
    const neither = await rejectionOf(
      verifyWebhook(delivery.body, header, ["whsec_unrelated", "whsec_other"]),
      WebhookVerificationError,
    );
    expect(neither.reason).toBe("signature_mismatch");
  });
});
