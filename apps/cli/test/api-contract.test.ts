import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { getOperation, type OperationId, operationIds } from "@octavo/contracts";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { Document, Packer, Paragraph } from "docx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "./support/client.js";
import { operationSamples } from "./support/operation-samples.js";
import { requiresPassword } from "./support/pdf-checks.js";
import { type LocalServer, startLocalServer } from "./support/servers.js";
import { type Stack, startStack } from "./support/stack.js";
import { missingStamps } from "./support/test-stamps.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");

/** poppler's pdfsig: its account of each signature ("Signature is Valid."). */
async function pdfsigVerdict(path: string): Promise<string> {
  return (await promisify(execFile)("pdfsig", [path])).stdout;
}

function expectErrorBody(body: Record<string, unknown>, code: string): void {
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe("string");
  expect((body.message as string).length).toBeGreaterThan(5);
  expect(typeof body.detail).toBe("string");
}

describe("the API contract (SQLite, supervised redis-server)", () => {
  let stack: Stack;
  let client: Client;
  let accountId: string;
  /** Serves the test PDF under a non-Latin name, in its path and in its Content-Disposition. */
  let site: LocalServer;

  beforeAll(async () => {
    site = await startLocalServer((req, res) => {
      res.setHeader("content-type", "application/pdf");
      if (req.url === "/download") {
        // RFC 6266 with RFC 8187's filename*. (A raw UTF-8 filename="…" is decoded too, see @octavo/net's
        // file-name tests, but undici refuses such a header once the body is large: the fetch fails.)
        const name = encodeURIComponent("Отчёт за квартал.pdf");
        res.setHeader("content-disposition", `attachment; filename="report.pdf"; filename*=UTF-8''${name}`);
      }
      res.end(readFileSync(pdf));
    });
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}` },
    });
    // Business: enough requests per minute for this file; the Free plan's own rules are tested apart.
    const account = await stack.createAccount("business");
    accountId = account.accountId;
    client = new Client(stack.baseUrl, account.apiKey);
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
  });

  it("refuses requests without a key, with a malformed key and with a revoked key", async () => {
    const anonymous = new Client(stack.baseUrl, undefined);
    const missing = await anonymous.get("/v1/account");
    expect(missing.status).toBe(401);
    expectErrorBody(missing.body, "missing_api_key");

    const malformed = await new Client(stack.baseUrl, "sk_test_123").get("/v1/account");
    expect(malformed.status).toBe(401);
    expectErrorBody(malformed.body, "invalid_api_key");

    const unknown = await new Client(stack.baseUrl, `svc_live_${"a".repeat(43)}`).get("/v1/account");
    expect(unknown.status).toBe(401);
    expectErrorBody(unknown.body, "invalid_api_key");

    const key = await stack.runtime.accounts.createKey(accountId, "to revoke");
    const revocable = new Client(stack.baseUrl, key.apiKey);
    expect((await revocable.get("/v1/account")).status).toBe(200);
    await stack.runtime.accounts.revokeKey(key.id);
    const revoked = await revocable.get("/v1/account");
    expect(revoked.status).toBe(401);
    expectErrorBody(revoked.body, "invalid_api_key");
  });

  it("describes the account: plan, the month's credits and the plan's limits", async () => {
    const free = await stack.createAccount("free");
    const { status, body } = await new Client(stack.baseUrl, free.apiKey).get("/v1/account");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: free.accountId,
      plan: "free",
      creditsIncluded: 100,
      creditsUsed: 0,
      creditsReserved: 0,
      creditsRemaining: 100,
      overageCredits: 0,
      limits: { requestsPerMinute: 10, maxFileBytes: 10 * 1024 * 1024, webhooks: false },
    });
    expect(Date.parse(body.periodEnd as string)).toBeGreaterThan(Date.parse(body.periodStart as string));
  });

  it("answers unknown routes, wrong methods, bad JSON and unknown jobs with the error body", async () => {
    const unknownRoute = await client.get("/v1/nothing-here");
    expect(unknownRoute.status).toBe(404);
    expectErrorBody(unknownRoute.body, "not_found");

    const wrongMethod = await client.get("/v1/merge");
    expect(wrongMethod.status).toBe(405);
    expectErrorBody(wrongMethod.body, "method_not_allowed");

    const badJson = await fetch(`${stack.baseUrl}/v1/merge`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(badJson.status).toBe(400);
    expectErrorBody((await badJson.json()) as Record<string, unknown>, "invalid_request");

    const textBody = await fetch(`${stack.baseUrl}/v1/rotate`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "text/plain" },
      body: "hello",
    });
    expect(textBody.status).toBe(400);
    expectErrorBody((await textBody.json()) as Record<string, unknown>, "invalid_request");

    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1"]) {
      const job = await client.get(`/v1/jobs/${id}`);
      expect(job.status).toBe(404);
      expectErrorBody(job.body, "not_found");
    }
  });

  it("validates the file rules and the options before creating a job", async () => {
    const oneFileMerge = await client.postFiles("/v1/merge", [{ path: pdf }]);
    expect(oneFileMerge.status).toBe(400);
    expectErrorBody(oneFileMerge.body, "invalid_input");

    const wrongExtension = await client.postFiles("/v1/rotate", [{ path: pdf, name: "notes.docx" }]);
    expect(wrongExtension.status).toBe(400);
    expectErrorBody(wrongExtension.body, "invalid_input");

    const badAngle = await client.postFiles("/v1/rotate", [{ path: pdf }], { angle: 45 });
    expect(badAngle.status).toBe(400);
    expectErrorBody(badAngle.body, "invalid_options");
    expect(badAngle.body.detail).toBe("angle: must be one of 90, 180, 270");

    const freeClient = new Client(stack.baseUrl, (await stack.createAccount("free")).apiKey);
    const webhookOnFree = await freeClient.postFiles(
      "/v1/rotate",
      [{ path: pdf }],
      {},
      { webhook_url: "https://example.com/hook" },
    );
    expect(webhookOnFree.status).toBe(403);
    expectErrorBody(webhookOnFree.body, "webhooks_not_in_plan");

    // None of the refused requests reserved or charged anything.
    expect((await client.get("/v1/account")).body.creditsReserved).toBe(0);
  });

  it("runs a job end to end: 202, polling, a signed download link, credits charged once", async () => {
    const created = await client.postFiles("/v1/rotate", [{ path: pdf, name: "Report Q3.pdf" }], {
      angle: 180,
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: "queued", credits: 1 });
    expect(created.body.statusUrl).toBe(`${stack.config.publicUrl}/v1/jobs/${created.body.id as string}`);

    const job = await client.waitForJob(created.body.id as string);
    expect(job.status).toBe("done");
    expect(job.progress).toBe(1);
    const [output] = job.outputs ?? [];
    expect(output).toMatchObject({ name: "Report Q3.pdf", contentType: "application/pdf", expired: false });
    const download = await client.download(output?.url ?? "");
    expect(download.status).toBe(200);
    expect(download.bytes.length).toBe(output?.size);
    expect(download.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(download.headers.get("content-disposition")).toContain("Report Q3.pdf");

    const forged = await client.download(
      (output?.url ?? "").replace(/signature=[0-9a-f]{4}/, "signature=0000"),
    );
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.bytes.toString())).toMatchObject({ error: "invalid_link" });

    const account = await client.get("/v1/account");
    expect(account.body).toMatchObject({ creditsUsed: 1, creditsReserved: 0, creditsRemaining: 49_999 });
  });

  it("keeps a non-Latin file name, uploaded or fetched, through to the download's Content-Disposition", async () => {
    const uploaded = await client.postFiles("/v1/rotate", [{ path: pdf, name: "Отчёт 2026 — 報告書.pdf" }], {
      angle: 90,
    });
    const fromPath = await client.postJson("/v1/rotate", {
      url: `${site.url}/files/%D0%A1%D0%BC%D0%B5%D1%82%D0%B0.pdf`,
      options: { angle: 90 },
    });
    const fromHeader = await client.postJson("/v1/rotate", {
      url: `${site.url}/download`,
      options: { angle: 90 },
    });
    const expected = [
      [uploaded, "Отчёт 2026 — 報告書.pdf"],
      [fromPath, "Смета.pdf"],
      [fromHeader, "Отчёт за квартал.pdf"],
    ] as const;
    for (const [created, name] of expected) {
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const job = await client.waitForJob(created.body.id as string);
      expect(job.status).toBe("done");
      const [output] = job.outputs ?? [];
      expect(output?.name).toBe(name);
      const download = await client.download(output?.url ?? "");
      // RFC 6266: an ASCII fallback and the real name in filename* (RFC 8187, UTF-8, percent-encoded).
      expect(download.headers.get("content-disposition")).toContain(
        `filename*=UTF-8''${encodeURIComponent(name)}`,
      );
    }
  });

  it("hides one account's jobs from another", async () => {
    const created = await client.postFiles("/v1/rotate", [{ path: pdf }]);
    const other = await stack.createAccount("free");
    const peek = await new Client(stack.baseUrl, other.apiKey).get(`/v1/jobs/${created.body.id as string}`);
    expect(peek.status).toBe(404);
    expectErrorBody(peek.body, "not_found");
    await client.waitForJob(created.body.id as string);
  });

  it("serves OpenAPI 3.1, the reference page from local assets, and the probes", async () => {
    const openapi = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    const document = (await openapi.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(Object.keys(document.paths)).toContain("/v1/convert/pdf-to-excel");

    const docs = await fetch(`${stack.baseUrl}/docs`);
    const html = await docs.text();
    expect(docs.status).toBe(200);
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const bundle = await fetch(`${stack.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);

    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      checks: { database: "ok", redis: "ok", storage: "ok", workers: "ok" },
    });
  });

  /**
   * Test-mode keys (svc_test_…): one account's live and test keys each see their own mode's jobs only, on
   * every job route; a test job is never charged, even on a Free account with no credits left; test keys
   * take at most 20 jobs a minute; webhooks say which mode a job ran in (delivered to the local site).
   */
  describe("test-mode keys", () => {
    let live: Client;
    let test: Client;

    /** A new account's live key (made with it) and a test key. */
    const liveAndTest = async (plan: "business" | "free") => {
      const account = await stack.createAccount(plan);
      const key = await stack.runtime.accounts.createKey(account.accountId, "integration tests", "test");
      expect(key).toMatchObject({ mode: "test", prefix: expect.stringMatching(/^svc_test_/) });
      expect(key.apiKey).toMatch(/^svc_test_[0-9A-Za-z]{43}$/);
      return {
        accountId: account.accountId,
        live: new Client(stack.baseUrl, account.apiKey),
        test: new Client(stack.baseUrl, key.apiKey),
      };
    };

    const rotate = async (as: Client, extra: Record<string, string> = {}) => {
      const created = await as.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 }, extra);
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      return as.waitForJob(String(created.body.id));
    };
    const ids = async (as: Client) =>
      ((await as.get("/v1/jobs?limit=100")).body.data as JobBody[]).map((job) => job.id);

    let scratch: { path: string; dispose(): Promise<void> };

    beforeAll(async () => {
      ({ live, test } = await liveAndTest("business"));
      scratch = await createTempDir("octavo-test-mode-");
    });
    afterAll(async () => {
      await scratch?.dispose();
    });

    it("keeps test and live jobs apart on every job route, both ways", async () => {
      const liveJob = await rotate(live);
      const testJob = await rotate(test);
      expect([liveJob.livemode, testJob.livemode]).toEqual([true, false]);
      for (const [own, other, theirs] of [
        [live, test, liveJob],
        [test, live, testJob],
      ] as const) {
        // The job, its list, its cancel and its delete answer the other mode's key as an unknown job does.
        expect((await other.get(`/v1/jobs/${theirs.id}`)).status).toBe(404);
        expect(await ids(other)).not.toContain(theirs.id);
        expect(await ids(own)).toContain(theirs.id);
        expect((await other.send("POST", `/v1/jobs/${theirs.id}/cancel`)).status).toBe(404);
        expect((await other.send("DELETE", `/v1/jobs/${theirs.id}`)).status).toBe(404);
        // Nothing changed: the owner still reads the job, and downloads its output.
        const after = (await own.get(`/v1/jobs/${theirs.id}`)).body as unknown as JobBody;
        expect(after).toMatchObject({ status: "done", livemode: theirs.livemode });
        expect((await own.download(after.outputs?.[0]?.url ?? "")).status).toBe(200);
      }
    });

    it("scopes an Idempotency-Key to its mode: the same key makes one job per mode", async () => {
      const post = async (as: Client) => {
        const created = await as.postFiles(
          "/v1/rotate",
          [{ path: pdf }],
          { angle: 180 },
          {},
          {
            "idempotency-key": "same-key-both-modes",
          },
        );
        expect(created.status).toBe(202);
        return { id: String(created.body.id), replayed: created.headers.has("idempotent-replayed") };
      };
      const first = await post(live);
      const other = await post(test);
      expect(other.replayed).toBe(false);
      expect(other.id).not.toBe(first.id);
      // Within one mode the key still replays.
      expect(await post(test)).toEqual({ id: other.id, replayed: true });
      expect((await test.waitForJob(other.id)).livemode).toBe(false);
      await live.waitForJob(first.id);
    });

    it("never charges a test job, even on a Free account with no credits left", async () => {
      const free = await liveAndTest("free");
      const spent = (await free.live.get("/v1/account")).body;
      await stack.runtime.accounts.adjustCredits(free.accountId, -Number(spent.creditsRemaining), "spent");
      const before = (await free.live.get("/v1/account")).body;
      // The live key is refused for want of credits; the test key runs the job.
      const refused = await free.live.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
      expect(refused.status).toBe(402);
      const job = await rotate(free.test);
      expect(job).toMatchObject({ status: "done", livemode: false, credits: 1 });
      const ledger = await kyselyOf(stack.runtime.database)
        .selectFrom("credit_ledger")
        .selectAll()
        .where("job_id", "=", job.id)
        .execute();
      expect(ledger).toEqual([]);
      const after = (await free.test.get("/v1/account")).body;
      expect(after).toMatchObject({
        creditsUsed: before.creditsUsed,
        creditsReserved: 0,
        creditsRemaining: 0,
      });
    });

    it("takes at most 20 jobs a minute from an account's test keys, and none from its live keys' share", async () => {
      const account = await liveAndTest("business");
      const post = (as: Client) => as.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
      const accepted = await Promise.all(Array.from({ length: 20 }, () => post(account.test)));
      expect(accepted.map((created) => created.status)).toEqual(Array(20).fill(202));
      const refused = await post(account.test);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: "rate_limited",
        message: "Test mode allows 20 jobs a minute per account.",
      });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // The account's live key is not held back by its test keys' jobs.
      expect((await post(account.live)).status).toBe(202);
      for (const created of accepted) await account.test.waitForJob(String(created.body.id));
    });

    it("stamps every output of every operation where its reader sees it", async () => {
      const found: Record<string, string[]> = {};
      const run = async (as: Client, operation: OperationId) => {
        const sample = operationSamples[operation];
        // Tesseract reads the 12 pt stamp in an image rendered at 150 dpi, not at the sample's 72.
        const options = operation === "pdf-to-image" ? { ...sample.options, dpi: 150 } : sample.options;
        const named = Object.entries(sample.named ?? {}).flatMap(([field, paths]) =>
          paths.map((path) => ({ path, field })),
        );
        const files = [...sample.files.map((path) => ({ path })), ...named];
        const created = await as.postFiles(getOperation(operation).path, files, options);
        expect(created.status, `${operation}: ${JSON.stringify(created.body)}`).toBe(202);
        const job = await as.waitForJob(String(created.body.id), 240_000);
        expect(job, operation).toMatchObject({ status: "done", livemode: false });
        expect(job.outputs, operation).toHaveLength(sample.outputs);
        const password = operation === "protect" ? String(sample.options?.userPassword) : undefined;
        found[operation] = [];
        for (const [index, output] of (job.outputs ?? []).entries()) {
          expect(output.contentType).toBe(sample.outputContentType);
          const file = await as.downloadTo(output.url, join(scratch.path, `${operation}-${index}`));
          found[operation].push(...(await missingStamps(file, output.contentType, password)));
          // Signed after it was stamped, so the signature still covers the whole file.
          if (operation === "sign") expect(await pdfsigVerdict(file)).toContain("Signature is Valid");
        }
      };
      // Test mode takes 20 jobs a minute from an account: each ten operations on an account of their own.
      const groups = Array.from({ length: Math.ceil(operationIds.length / 10) }, (_, index) =>
        operationIds.slice(index * 10, index * 10 + 10),
      );
      await Promise.all(
        groups.map(async (operations) => {
          const { test: as } = await liveAndTest("business");
          await Promise.all(operations.map((operation) => run(as, operation)));
        }),
      );
      expect(found).toEqual(Object.fromEntries(operationIds.map((operation) => [operation, []])));
    }, 600_000);

    it("stamps a pipeline's output once, before its last step where that step's output cannot take it", async () => {
      const created = await test.postFiles("/v1/pipeline", [{ path: pdf }], undefined, {
        steps: JSON.stringify([
          { operation: "rotate", options: { angle: 90 } },
          { operation: "protect", options: { userPassword: "pipeline-secret" } },
        ]),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const job = await test.waitForJob(String(created.body.id));
      expect(job).toMatchObject({ status: "done", livemode: false });
      const file = await test.downloadTo(job.outputs?.[0]?.url, join(scratch.path, "pipeline.pdf"));
      expect(await requiresPassword(file)).toBe(true);
      expect(await missingStamps(file, "application/pdf", "pipeline-secret")).toEqual([]);
    });

    it("refuses an input of more than 10 pages: a PDF by its pages, a Word file by the PDF it becomes", async () => {
      const long = corpusPath("general/pdfjs_tracemonkey_with_annotations.pdf"); // 14 pages
      const rotated = await test.postFiles("/v1/rotate", [{ path: long }], { angle: 90 });
      expect(await test.waitForJob(String(rotated.body.id))).toMatchObject({
        status: "failed",
        error: "invalid_input",
        message:
          "pdfjs_tracemonkey_with_annotations.pdf has 14 pages; test mode allows 10 pages per input file. Send a shorter file, or use a live key.",
      });
      const pages = Array.from(
        { length: 12 },
        (_, index) => new Paragraph({ text: `Page ${index + 1}`, pageBreakBefore: index > 0 }),
      );
      const docx = join(scratch.path, "twelve-pages.docx");
      await writeFile(docx, await Packer.toBuffer(new Document({ sections: [{ children: pages }] })));
      const converted = await test.postFiles("/v1/convert/word-to-pdf", [{ path: docx }]);
      expect(await test.waitForJob(String(converted.body.id))).toMatchObject({
        status: "failed",
        error: "invalid_input",
        message:
          "The output twelve-pages.pdf has 12 pages; test mode allows 10 pages per input file. Send a shorter file, or use a live key.",
      });
      // The limit is test mode's: a live key's job takes the same file.
      const live14 = await live.postFiles("/v1/rotate", [{ path: long }], { angle: 90 });
      expect(await live.waitForJob(String(live14.body.id))).toMatchObject({ status: "done", livemode: true });
    });

    it("says in each webhook whether the job ran in live or test mode", async () => {
      const hook = (path: string) => ({ webhook_url: `${site.url}${path}` });
      const liveJob = await rotate(live, hook("/live"));
      const testJob = await rotate(test, hook("/test"));
      for (const [path, job, livemode] of [
        ["/live", liveJob, true],
        ["/test", testJob, false],
      ] as const) {
        const delivery = await waitFor(`the ${path} webhook`, () =>
          site.requests.find((request) => request.url === path),
        );
        expect(JSON.parse(delivery.body)).toMatchObject({ id: job.id, livemode });
      }
    });
  });
});
