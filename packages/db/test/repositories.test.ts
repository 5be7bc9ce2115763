import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyOf } from "../src/database.js";
import { createDatabase, type DatabaseHandle, migrateToLatest, pingDatabase } from "../src/index.js";
import {
  claimIdempotencyKey,
  deleteIdempotencyKeysBefore,
  deleteWebhookDeliveriesFinishedBefore,
  findApiKeyByHash,
  findIdempotencyKey,
  findJob,
  findJobForAccount,
  finishJob,
  insertAccount,
  insertApiKey,
  insertJob,
  insertLedgerEntry,
  insertWebhookDelivery,
  ledgerTotals,
  listJobFiles,
  recordWebhookAttempt,
  reservedCredits,
  revokeApiKey,
  startJob,
  testJobTotals,
} from "../src/repositories/index.js";

const now = "2026-11-23T10:00:00.000Z";
const period = "2026-11-01T00:00:00.000Z";

describe.each<DatabaseKind>(["sqlite", "postgres"])("repositories on %s", (kind) => {
  let resource: TempResource;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url);
    expect(await migrateToLatest(handle)).toEqual([
      "001-initial",
      "002-idempotency-webhooks",
      "003-job-results",
      "004-dashboard",
      "005-fair-queues",
      "006-request-ids",
      "007-job-listing",
      "008-deleted-results",
      "009-pipeline-steps",
      "010-named-inputs",
      "011-test-mode",
    ]);
    // A second run finds nothing to do.
    expect(await migrateToLatest(handle)).toEqual([]);
    await insertAccount(kyselyOf(handle), {
      id: "a1",
      email: "a@example.com",
      plan: "free",
      webhook_secret: "x",
      created_at: now,
    });
  });

  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("answers a ping and reports its dialect", async () => {
    await pingDatabase(handle);
    expect(handle.dialect).toBe(kind);
  });

  it("finds a key by hash and revokes it once", async () => {
    await insertApiKey(kyselyOf(handle), {
      id: "k1",
      account_id: "a1",
      prefix: "svc_live_abcd",
      hash: "h1",
      label: null,
      created_at: now,
    });
    expect(await findApiKeyByHash(kyselyOf(handle), "h1")).toMatchObject({ account_id: "a1", mode: "live" });
    await insertApiKey(kyselyOf(handle), {
      id: "k2",
      account_id: "a1",
      prefix: "svc_test_abcd",
      hash: "h2",
      mode: "test",
      label: null,
      created_at: now,
    });
    expect((await findApiKeyByHash(kyselyOf(handle), "h2"))?.mode).toBe("test");
    expect(await revokeApiKey(kyselyOf(handle), "k1", now)).toBe(true);
    expect(await revokeApiKey(kyselyOf(handle), "k1", now)).toBe(false);
    expect((await findApiKeyByHash(kyselyOf(handle), "h1"))?.revoked_at).toBe(now);
  });

  it("moves a job through its states exactly once and sums reservations", async () => {
    await insertJob(
      kyselyOf(handle),
      {
        id: "j1",
        account_id: "a1",
        operation: "merge",
        options: "{}",
        status: "queued",
        progress: 0,
        credits: 3,
        period_start: period,
        error_code: null,
        error_message: null,
        engine: null,
        webhook_url: null,
        created_at: now,
        started_at: null,
        finished_at: null,
      },
      [
        {
          id: "f1",
          job_id: "j1",
          role: "input",
          position: 0,
          name: "a.pdf",
          size: 10,
          content_type: "application/pdf",
          storage_key: "jobs/j1/inputs/0",
          deleted_at: null,
          created_at: now,
        },
      ],
    );
    expect(await reservedCredits(kyselyOf(handle), "a1", period)).toBe(3);
    // A test key's job beside it reserves nothing, and only its own mode finds it.
    await insertJob(
      kyselyOf(handle),
      {
        id: "j1-test",
        account_id: "a1",
        mode: "test",
        operation: "merge",
        options: "{}",
        status: "queued",
        progress: 0,
        credits: 3,
        period_start: period,
        created_at: now,
      },
      [],
    );
    expect(await reservedCredits(kyselyOf(handle), "a1", period)).toBe(3);
    expect(
      await findJobForAccount(kyselyOf(handle), "j1-test", { accountId: "a1", mode: "live" }),
    ).toBeUndefined();
    expect(
      await findJobForAccount(kyselyOf(handle), "j1", { accountId: "a1", mode: "test" }),
    ).toBeUndefined();
    expect(
      (await findJobForAccount(kyselyOf(handle), "j1-test", { accountId: "a1", mode: "test" }))?.mode,
    ).toBe("test");
    // Test mode's usage is counted from its jobs, by status, with what they would have cost.
    expect(await testJobTotals(kyselyOf(handle), "a1", period)).toEqual([
      { status: "queued", jobs: 1, credits: 3 },
    ]);
    expect(await testJobTotals(kyselyOf(handle), "a1", "2026-10-01T00:00:00.000Z")).toEqual([]);
    expect(await startJob(kyselyOf(handle), "j1", now)).toMatchObject({ status: "active", attempts: 1 });
    // Re-delivered: the row as it now is, read by the same statement.
    const active = await startJob(kyselyOf(handle), "j1", "2026-11-23T10:00:05.000Z");
    expect(active).toMatchObject({ status: "active", attempts: 2, options: "{}" });
    expect(active?.started_at).toBe(now); // the first start is kept

    const done = await finishJob(kyselyOf(handle), "j1", { status: "done", finished_at: now, progress: 1 });
    expect(done).toMatchObject({ status: "done", progress: 1, account_id: "a1" });
    expect(await finishJob(kyselyOf(handle), "j1", { status: "failed", finished_at: now })).toBeUndefined();
    expect((await findJob(kyselyOf(handle), "j1"))?.status).toBe("done");
    expect(await reservedCredits(kyselyOf(handle), "a1", period)).toBe(0);
    expect(await startJob(kyselyOf(handle), "j1", now)).toBeUndefined();
    expect((await listJobFiles(kyselyOf(handle), "j1", "input")).map((file) => file.name)).toEqual(["a.pdf"]);
  });

  it("charges a job at most once and totals the ledger per period", async () => {
    await insertLedgerEntry(kyselyOf(handle), {
      id: "l1",
      account_id: "a1",
      period_start: period,
      kind: "charge",
      amount: 3,
      job_id: "j1",
      reason: null,
      created_at: now,
    });
    await expect(
      insertLedgerEntry(kyselyOf(handle), {
        id: "l2",
        account_id: "a1",
        period_start: period,
        kind: "charge",
        amount: 3,
        job_id: "j1",
        reason: null,
        created_at: now,
      }),
    ).rejects.toThrow();
    await insertLedgerEntry(kyselyOf(handle), {
      id: "l3",
      account_id: "a1",
      period_start: period,
      kind: "adjustment",
      amount: 50,
      job_id: null,
      reason: "goodwill",
      created_at: now,
    });
    await insertLedgerEntry(kyselyOf(handle), {
      id: "l4",
      account_id: "a1",
      period_start: period,
      kind: "adjustment",
      amount: -5,
      job_id: null,
      reason: "correction",
      created_at: now,
    });
    expect(await ledgerTotals(kyselyOf(handle), "a1", period)).toEqual({ charged: 3, adjustments: 45 });
    expect(await ledgerTotals(kyselyOf(handle), "a1", "2026-10-01T00:00:00.000Z")).toEqual({
      charged: 0,
      adjustments: 0,
    });
  });

  it("lets exactly one request claim an idempotency key, and prunes old keys", async () => {
    const claim = { accountId: "a1", key: "key-1", fingerprint: "fp", status: 202, now };
    const claims = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        claimIdempotencyKey(kyselyOf(handle), { ...claim, body: `{"id":"j${index}"}` }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await findIdempotencyKey(kyselyOf(handle), "a1", "key-1")).toMatchObject({
      status: "done",
      response_status: 202,
      fingerprint: "fp",
    });
    expect(await deleteIdempotencyKeysBefore(kyselyOf(handle), "2026-11-24T00:00:00.000Z")).toBe(1);
    expect(await findIdempotencyKey(kyselyOf(handle), "a1", "key-1")).toBeUndefined();
  });

  it("deletes ended webhook deliveries before a date, with their attempts, and keeps pending ones", async () => {
    const delivery = (id: string) => ({
      id,
      job_id: "j1",
      account_id: "a1",
      url: "https://example.com/hook",
      status: "pending" as const,
      created_at: now,
    });
    for (const id of ["d-old", "d-new", "d-pending"])
      await insertWebhookDelivery(kyselyOf(handle), delivery(id));
    const attempt = (deliveryId: string, finishedAt: string) =>
      recordWebhookAttempt(
        kyselyOf(handle),
        {
          id: `${deliveryId}-1`,
          delivery_id: deliveryId,
          attempt: 1,
          started_at: now,
          status_code: 204,
          duration_ms: 5,
        },
        { status: "delivered", finishedAt },
      );
    await attempt("d-old", "2026-10-01T00:00:00.000Z");
    await attempt("d-new", "2026-11-20T00:00:00.000Z");

    expect(
      await deleteWebhookDeliveriesFinishedBefore(kyselyOf(handle), "2026-10-24T00:00:00.000Z", 100),
    ).toBe(1);
    const left = await kyselyOf(handle).selectFrom("webhook_deliveries").select("id").orderBy("id").execute();
    expect(left.map((row) => row.id)).toEqual(["d-new", "d-pending"]);
    const attempts = await kyselyOf(handle).selectFrom("webhook_attempts").select("delivery_id").execute();
    expect(attempts.map((row) => row.delivery_id)).toEqual(["d-new"]);
    expect(
      await deleteWebhookDeliveriesFinishedBefore(kyselyOf(handle), "2026-10-24T00:00:00.000Z", 100),
    ).toBe(0);
  });
});
