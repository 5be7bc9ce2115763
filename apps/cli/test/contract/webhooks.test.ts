import { createHmac, timingSafeEqual } from "node:crypto";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath, waitFor } from "@octavo/testing";
import { runJanitor } from "@octavo/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { type LocalServer, type RecordedRequest, startLocalServer } from "../support/servers.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const encrypted = corpusPath("encrypted/pypdf_r6-both-passwords.pdf");

/** The spec's recipe, as a receiver would write it: HMAC-SHA256 of "<t>.<raw body>", 300 s window. */
function verify(request: RecordedRequest, secret: string): boolean {
  const header = String(request.headers["svc-signature"] ?? "");
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${request.body}`).digest();
  return [...header.matchAll(/v1=([0-9a-f]{64})/g)].some((match) =>
    timingSafeEqual(Buffer.from(match[1] ?? "", "hex"), expected),
  );
}

describe("webhooks", () => {
  let stack: Stack;
  let receiver: LocalServer;
  /**
   * Answers per path: "/flaky" fails once, "/late" three times (down for the first attempt and two of
   * the three retries), "/down" always fails, anything else succeeds.
   */
  const seen = new Map<string, number>();

  beforeAll(async () => {
    receiver = await startLocalServer((req, res) => {
      const path = req.url ?? "";
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      const failing =
        path === "/down" || (path === "/flaky" && count === 1) || (path === "/late" && count <= 3);
      res.statusCode = failing ? 503 : 204;
      res.end();
    });
    stack = await startStack({
      database: "postgres",
      redis: "shared",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${receiver.port}` },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const deliveriesTo = (path: string) => receiver.requests.filter((request) => request.url === path);

  it("posts the finished job, signed, retrying three times over about 45 seconds", async () => {
    const account = await stack.createAccount("starter");
    const client = new Client(stack.baseUrl, account.apiKey);
    // Started first: its retries run while the other cases below are checked.
    const down = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: `${receiver.url}/down` },
    );
    const done = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: `${receiver.url}/done` },
    );
    const failed = await client.postFiles(
      "/v1/rotate",
      [{ path: encrypted }],
      {},
      { webhook_url: `${receiver.url}/failed` },
    );
    const flaky = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: `${receiver.url}/flaky` },
    );
    const late = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: `${receiver.url}/late` },
    );
    for (const created of [down, done, failed, flaky, late])
      expect(created.status, JSON.stringify(created.body)).toBe(202);

    // A done job: the same JSON as GET /v1/jobs/{id}, signed with the account's secret.
    const [delivery] = await waitFor("the done webhook", () =>
      deliveriesTo("/done").length > 0 ? deliveriesTo("/done") : undefined,
    );
    expect(delivery?.headers["content-type"]).toBe("application/json");
    expect(verify(delivery as RecordedRequest, account.webhookSecret)).toBe(true);
    expect(verify(delivery as RecordedRequest, "whsec_wrong")).toBe(false);
    const delivered = JSON.parse(delivery?.body ?? "{}") as JobBody;
    const polled = await client.waitForJob(done.body.id as string);
    const withoutLinks = (job: JobBody) => ({
      ...job,
      outputs: job.outputs?.map(({ url: _url, ...rest }) => ({ ...rest, urlExpiresAt: undefined })),
    });
    expect(withoutLinks(delivered)).toEqual(withoutLinks(polled));
    expect(delivered.outputs?.[0]?.url).toMatch(/\/v1\/files\//);

    // A failed job sends its error code and message.
    const [failure] = await waitFor("the failed webhook", () =>
      deliveriesTo("/failed").length > 0 ? deliveriesTo("/failed") : undefined,
    );
    expect(JSON.parse(failure?.body ?? "{}")).toMatchObject({
      id: failed.body.id,
      status: "failed",
      error: "password_required",
    });

    // One failure, then success after about 5 s.
    await waitFor(
      "the flaky webhook's retry",
      () => (deliveriesTo("/flaky").length >= 2 ? true : undefined),
      20_000,
    );
    const flakyTimes = deliveriesTo("/flaky").map((request) => request.at);
    expect((flakyTimes[1] ?? 0) - (flakyTimes[0] ?? 0)).toBeGreaterThanOrEqual(4_500);

    // Always failing: the first attempt and three retries, 5, 15 and 25 s apart; then it stops.
    await waitFor(
      "four attempts at /down",
      () => (deliveriesTo("/down").length >= 4 ? true : undefined),
      70_000,
    );
    const times = deliveriesTo("/down").map((request) => request.at);
    const gaps = times.slice(1).map((at, index) => at - (times[index] ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(4_500);
    expect(gaps[1]).toBeGreaterThanOrEqual(14_500);
    expect(gaps[2]).toBeGreaterThanOrEqual(24_500);
    expect((times[3] ?? 0) - (times[0] ?? 0)).toBeLessThan(60_000);

    // Every attempt is recorded, and the delivery ends as failed.
    const db = kyselyOf(stack.runtime.database);
    /** The job's delivery, once it has this status. */
    const deliveryOnce = (job: { body: Record<string, unknown> }, status: "failed" | "delivered") =>
      waitFor(`the delivery to be ${status}`, async () => {
        const row = await db
          .selectFrom("webhook_deliveries")
          .selectAll()
          .where("job_id", "=", job.body.id as string)
          .executeTakeFirst();
        return row?.status === status ? row : undefined;
      });
    const downDelivery = await deliveryOnce(down, "failed");
    const attempts = await db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("delivery_id", "=", downDelivery.id)
      .orderBy("attempt")
      .execute();
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 503],
    ]);
    const flakyDelivery = await db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("job_id", "=", flaky.body.id as string)
      .executeTakeFirstOrThrow();
    expect(flakyDelivery).toMatchObject({ status: "delivered", attempts: 2, last_status_code: 204 });
    // Down for three attempts, up for the last retry: it arrives, signed.
    const lateDelivery = await deliveryOnce(late, "delivered");
    expect(lateDelivery).toMatchObject({ attempts: 4, last_status_code: 204 });
    const arrived = deliveriesTo("/late");
    expect(arrived).toHaveLength(4);
    expect(verify(arrived[3] as RecordedRequest, account.webhookSecret)).toBe(true);
    expect(JSON.parse(arrived[3]?.body ?? "{}")).toMatchObject({ id: late.body.id, status: "done" });
    expect(deliveriesTo("/down")).toHaveLength(4);

    // The records are kept 30 days, then the cluster's janitor deletes them with their attempts.
    const ended = [downDelivery.id, flakyDelivery.id];
    const kept = async () =>
      (await db.selectFrom("webhook_deliveries").select("id").where("id", "in", ended).execute()).length;
    await runJanitor({ ...stack.runtime }, new Date(Date.now() + 29 * 86_400_000));
    expect(await kept()).toBe(2);
    expect(
      (await runJanitor({ ...stack.runtime }, new Date(Date.now() + 31 * 86_400_000))).deliveries,
    ).toBeGreaterThanOrEqual(2);
    expect(await kept()).toBe(0);
    const orphans = await db
      .selectFrom("webhook_attempts")
      .select("id")
      .where("delivery_id", "in", ended)
      .execute();
    expect(orphans).toHaveLength(0);
  });

  it("signs with both secrets for 24 hours after a rotation", async () => {
    const account = await stack.createAccount("pro");
    const rotated = await stack.runtime.accounts.rotateWebhookSecret(account.accountId);
    const client = new Client(stack.baseUrl, account.apiKey);
    const created = await client.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: `${receiver.url}/rotated` },
    );
    const [delivery] = await waitFor("the webhook", () =>
      deliveriesTo("/rotated").length > 0 ? deliveriesTo("/rotated") : undefined,
    );
    expect(String(delivery?.headers["svc-signature"]).match(/v1=/g)).toHaveLength(2);
    expect(verify(delivery as RecordedRequest, account.webhookSecret)).toBe(true);
    expect(verify(delivery as RecordedRequest, rotated.webhookSecret)).toBe(true);
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({ id: created.body.id, status: "done" });
  });
});
