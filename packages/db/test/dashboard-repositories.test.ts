import { createTestDatabase, type DatabaseKind, type TempResource } from "@octavo/testing";
import { Migrator } from "kysely/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyOf } from "../src/database.js";
import { createDatabase, type DatabaseHandle, migrateToLatest } from "../src/index.js";
import { migrationProvider } from "../src/migrations/index.js";
import {
  creditsPerDay,
  deleteDashboardSession,
  deleteDashboardSessionsExpiredBefore,
  findAccountById,
  findDashboardSession,
  findWebhookDeliveryOfAccount,
  insertAccount,
  insertDashboardSession,
  insertJob,
  insertJobFiles,
  insertLedgerEntry,
  insertWebhookDelivery,
  listJobsOfAccount,
  listOutputsOfJobs,
  listWebhookAttemptsOfDeliveries,
  listWebhookDeliveriesOfAccount,
  recordWebhookAttempt,
  setAccountPasswordHash,
  touchDashboardSession,
} from "../src/repositories/index.js";

const period = "2026-11-01T00:00:00.000Z";

function job(id: string, accountId: string, createdAt: string, status: "queued" | "done" | "failed") {
  return {
    id,
    account_id: accountId,
    operation: "merge",
    options: "{}",
    status,
    progress: 0,
    credits: 2,
    period_start: period,
    error_code: null,
    error_message: null,
    engine: null,
    webhook_url: null,
    created_at: createdAt,
    started_at: null,
    finished_at: null,
  };
}

function output(jobId: string, position: number) {
  return {
    id: `${jobId}-out-${position}`,
    job_id: jobId,
    role: "output" as const,
    position,
    name: `${jobId}-${position}.pdf`,
    size: 10,
    content_type: "application/pdf",
    storage_key: `jobs/${jobId}/outputs/${position}`,
    deleted_at: null,
    created_at: "2026-11-02T00:00:00.000Z",
  };
}

describe.each<DatabaseKind>(["sqlite", "postgres"])("dashboard repositories on %s", (kind) => {
  let resource: TempResource;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    resource = await createTestDatabase(kind);
    handle = createDatabase(resource.url);
    await migrateToLatest(handle);
    for (const id of ["a1", "a2"]) {
      await insertAccount(kyselyOf(handle), {
        id,
        email: `${id}@example.com`,
        plan: "free",
        webhook_secret: "x",
        created_at: "2026-11-01T00:00:00.000Z",
      });
    }
  });

  afterAll(async () => {
    await handle?.close();
    await resource?.dispose();
  });

  it("migrates 004-dashboard down and up again", async () => {
    const migrator = new Migrator({ db: kyselyOf(handle), provider: migrationProvider });
    // Down drops the sessions table and the password column (the rows above keep everything else).
    const down = await migrator.migrateTo("003-job-results");
    expect(down.error).toBeUndefined();
    expect(down.results?.map((result) => result.migrationName)).toEqual([
      "011-test-mode",
      "010-named-inputs",
      "009-pipeline-steps",
      "008-deleted-results",
      "007-job-listing",
      "006-request-ids",
      "005-fair-queues",
      "004-dashboard",
    ]);
    const tables = (await kyselyOf(handle).introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain("dashboard_sessions");
    const accounts = (await kyselyOf(handle).introspection.getTables()).find(
      (table) => table.name === "accounts",
    );
    expect(accounts?.columns.map((column) => column.name)).not.toContain("password_hash");
    expect(await migrateToLatest(handle)).toEqual([
      "004-dashboard",
      "005-fair-queues",
      "006-request-ids",
      "007-job-listing",
      "008-deleted-results",
      "009-pipeline-steps",
      "010-named-inputs",
      "011-test-mode",
    ]);
    expect((await findAccountById(kyselyOf(handle), "a1"))?.password_hash).toBeNull();
  });

  it("stores a password hash on an account", async () => {
    expect(await setAccountPasswordHash(kyselyOf(handle), "a1", "$argon2id$x")).toBe(true);
    expect((await findAccountById(kyselyOf(handle), "a1"))?.password_hash).toBe("$argon2id$x");
    expect((await findAccountById(kyselyOf(handle), "a2"))?.password_hash).toBeNull();
    expect(await setAccountPasswordHash(kyselyOf(handle), "nobody", "$argon2id$x")).toBe(false);
  });

  it("inserts, finds, touches and deletes sessions", async () => {
    const session = (id: string, accountId: string, expiresAt: string) => ({
      id,
      account_id: accountId,
      created_at: "2026-11-01T00:00:00.000Z",
      expires_at: expiresAt,
      last_seen_at: "2026-11-01T00:00:00.000Z",
    });
    await insertDashboardSession(kyselyOf(handle), session("s1", "a1", "2026-11-08T00:00:00.000Z"));
    await insertDashboardSession(kyselyOf(handle), session("s2", "a1", "2026-11-03T00:00:00.000Z"));
    await insertDashboardSession(kyselyOf(handle), session("s3", "a2", "2026-11-02T00:00:00.000Z"));
    await insertDashboardSession(kyselyOf(handle), session("s4", "a2", "2026-11-20T00:00:00.000Z"));
    await expect(
      insertDashboardSession(kyselyOf(handle), session("s5", "no-such-account", "2026-11-20T00:00:00.000Z")),
    ).rejects.toThrow();

    expect(await findDashboardSession(kyselyOf(handle), "s1")).toEqual(
      session("s1", "a1", "2026-11-08T00:00:00.000Z"),
    );
    expect(await findDashboardSession(kyselyOf(handle), "nope")).toBeUndefined();

    await touchDashboardSession(
      kyselyOf(handle),
      "s1",
      "2026-11-05T00:00:00.000Z",
      "2026-11-12T00:00:00.000Z",
    );
    expect(await findDashboardSession(kyselyOf(handle), "s1")).toMatchObject({
      last_seen_at: "2026-11-05T00:00:00.000Z",
      expires_at: "2026-11-12T00:00:00.000Z",
      created_at: "2026-11-01T00:00:00.000Z",
    });

    // Expired before Nov 4: s2 and s3, whichever the account.
    expect(await deleteDashboardSessionsExpiredBefore(kyselyOf(handle), "2026-11-04T00:00:00.000Z")).toBe(2);
    expect(await findDashboardSession(kyselyOf(handle), "s2")).toBeUndefined();
    expect(await findDashboardSession(kyselyOf(handle), "s3")).toBeUndefined();

    await insertDashboardSession(kyselyOf(handle), session("s6", "a1", "2026-11-20T00:00:00.000Z"));
    expect(await deleteDashboardSession(kyselyOf(handle), "s6")).toBe(true);
    expect(await deleteDashboardSession(kyselyOf(handle), "s6")).toBe(false);
    expect(await findDashboardSession(kyselyOf(handle), "s1")).toBeDefined();
    expect(await findDashboardSession(kyselyOf(handle), "s4")).toBeDefined();
  });

  it("lists an account's jobs newest first, by status, and the outputs of many jobs at once", async () => {
    await insertJob(kyselyOf(handle), job("j1", "a1", "2026-11-02T10:00:00.000Z", "done"), []);
    await insertJob(kyselyOf(handle), job("j3", "a1", "2026-11-03T10:00:00.000Z", "failed"), []);
    // Same instant as j3: the id breaks the tie.
    await insertJob(kyselyOf(handle), job("j2", "a1", "2026-11-03T10:00:00.000Z", "done"), []);
    await insertJob(kyselyOf(handle), job("j4", "a1", "2026-11-04T10:00:00.000Z", "queued"), []);
    await insertJob(kyselyOf(handle), job("x1", "a2", "2026-11-05T10:00:00.000Z", "done"), []);
    await insertJobFiles(kyselyOf(handle), [
      output("j1", 1),
      output("j1", 0),
      output("j2", 0),
      output("x1", 0),
    ]);
    await insertJobFiles(kyselyOf(handle), [{ ...output("j1", 0), id: "j1-in", role: "input" }]);

    const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
    expect(
      ids(await listJobsOfAccount(kyselyOf(handle), { accountId: "a1", mode: "live" }, { limit: 10 })),
    ).toEqual(["j4", "j3", "j2", "j1"]);
    expect(
      ids(await listJobsOfAccount(kyselyOf(handle), { accountId: "a1", mode: "live" }, { limit: 2 })),
    ).toEqual(["j4", "j3"]);
    expect(
      ids(
        await listJobsOfAccount(
          kyselyOf(handle),
          { accountId: "a1", mode: "live" },
          { status: "done", limit: 10 },
        ),
      ),
    ).toEqual(["j2", "j1"]);
    expect(
      ids(
        await listJobsOfAccount(
          kyselyOf(handle),
          { accountId: "a1", mode: "live" },
          { status: undefined, limit: 1 },
        ),
      ),
    ).toEqual(["j4"]);
    expect(
      ids(await listJobsOfAccount(kyselyOf(handle), { accountId: "a2", mode: "live" }, { limit: 10 })),
    ).toEqual(["x1"]);

    expect(ids(await listOutputsOfJobs(kyselyOf(handle), ["j1", "j2", "j3"]))).toEqual([
      "j1-out-0",
      "j1-out-1",
      "j2-out-0",
    ]);
    expect(await listOutputsOfJobs(kyselyOf(handle), [])).toEqual([]);
  });

  it("sums an account's charges of a period per UTC day", async () => {
    const entry = (
      id: string,
      accountId: string,
      kind: "charge" | "adjustment",
      amount: number,
      at: string,
    ) =>
      insertLedgerEntry(kyselyOf(handle), {
        id,
        account_id: accountId,
        period_start: period,
        kind,
        amount,
        job_id: null,
        reason: null,
        created_at: at,
      });
    await entry("c1", "a1", "charge", 2, "2026-11-03T23:59:59.999Z");
    await entry("c2", "a1", "charge", 5, "2026-11-03T00:00:00.000Z");
    await entry("c3", "a1", "charge", 1, "2026-11-01T08:00:00.000Z");
    await entry("c4", "a1", "adjustment", 100, "2026-11-02T08:00:00.000Z"); // not a charge
    await entry("c5", "a2", "charge", 40, "2026-11-02T08:00:00.000Z"); // another account
    await insertLedgerEntry(kyselyOf(handle), {
      id: "c6",
      account_id: "a1",
      period_start: "2026-10-01T00:00:00.000Z",
      kind: "charge",
      amount: 9,
      job_id: null,
      reason: null,
      created_at: "2026-10-31T08:00:00.000Z",
    }); // another period

    expect(await creditsPerDay(kyselyOf(handle), "a1", period)).toEqual([
      { day: "2026-11-01", credits: 1 },
      { day: "2026-11-03", credits: 7 },
    ]);
    expect(await creditsPerDay(kyselyOf(handle), "a2", period)).toEqual([{ day: "2026-11-02", credits: 40 }]);
    expect(await creditsPerDay(kyselyOf(handle), "a2", "2026-10-01T00:00:00.000Z")).toEqual([]);
  });

  it("lists an account's webhook deliveries newest first with their attempts, and isolates accounts", async () => {
    const delivery = (id: string, accountId: string, jobId: string, createdAt: string) =>
      insertWebhookDelivery(kyselyOf(handle), {
        id,
        job_id: jobId,
        account_id: accountId,
        url: "https://example.com/hook",
        status: "pending",
        created_at: createdAt,
      });
    await delivery("d1", "a1", "j1", "2026-11-02T10:00:00.000Z");
    await delivery("d2", "a1", "j2", "2026-11-03T10:00:00.000Z");
    await delivery("d3", "a1", "j3", "2026-11-03T10:00:00.000Z");
    await delivery("dx", "a2", "x1", "2026-11-05T10:00:00.000Z");
    const attempt = (deliveryId: string, number: number, statusCode: number | null) =>
      recordWebhookAttempt(
        kyselyOf(handle),
        {
          id: `${deliveryId}-${number}`,
          delivery_id: deliveryId,
          attempt: number,
          started_at: "2026-11-03T10:00:00.000Z",
          status_code: statusCode,
          error: statusCode === null ? "timeout" : null,
          duration_ms: 5,
        },
        { status: statusCode === 204 ? "delivered" : "pending", finishedAt: null },
      );
    await attempt("d2", 1, 500);
    await attempt("d1", 1, null);
    await attempt("d1", 2, 204);
    await attempt("dx", 1, 204);

    const deliveries = await listWebhookDeliveriesOfAccount(kyselyOf(handle), "a1", 10);
    expect(deliveries.map((row) => row.id)).toEqual(["d3", "d2", "d1"]);
    expect((await listWebhookDeliveriesOfAccount(kyselyOf(handle), "a1", 1)).map((row) => row.id)).toEqual([
      "d3",
    ]);
    expect(deliveries.find((row) => row.id === "d1")).toMatchObject({ attempts: 2, status: "delivered" });

    const attempts = await listWebhookAttemptsOfDeliveries(kyselyOf(handle), ["d1", "d2", "d3"]);
    expect(attempts.map((row) => [row.delivery_id, row.attempt, row.status_code])).toEqual([
      ["d1", 1, null],
      ["d1", 2, 204],
      ["d2", 1, 500],
    ]);
    expect(await listWebhookAttemptsOfDeliveries(kyselyOf(handle), [])).toEqual([]);

    expect((await findWebhookDeliveryOfAccount(kyselyOf(handle), "a1", "d1"))?.job_id).toBe("j1");
    expect(await findWebhookDeliveryOfAccount(kyselyOf(handle), "a1", "dx")).toBeUndefined();
    expect(await findWebhookDeliveryOfAccount(kyselyOf(handle), "a2", "d1")).toBeUndefined();
    expect(await findWebhookDeliveryOfAccount(kyselyOf(handle), "a1", "missing")).toBeUndefined();
  });
});
