import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath, createTempDir, waitFor } from "@octavo/testing";
import { killProcessTree } from "@octavo/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { exited, logLines, type OctavoProcess } from "../support/cluster.js";
import { pageCount, pageRotations, qpdfCheck, requiresPassword } from "../support/pdf-checks.js";
import { spawnOctavo } from "../support/processes.js";
import { type LocalServer, startLocalServer } from "../support/servers.js";
import { type Stack, startStack } from "../support/stack.js";

const samplePdf = fileURLToPath(new URL("../../../../examples/sample-a.pdf", import.meta.url));
const scan = corpusPath("scanned/ocrmypdf_linn.pdf");
const scanText = corpusPath("scanned/ocrmypdf_linn.txt");
const damaged = corpusPath("broken/govdocs_error_set_2_498264.pdf");
const docx = corpusPath("office/pydocx_having-images.docx");
const html = corpusPath("html/docling_wiki_duck.html");
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

type Step = { operation: string; options?: Record<string, unknown> };

/** Lower-case words of 5 letters or more: enough to tell OCR'd text from noise. */
const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[a-z]{5,}/g) ?? []);

/**
 * POST /v1/pipeline through the real API and workers: the typical chains on corpus files, each
 * output checked with the tools a customer would use; the refusals; one job, one charge, one webhook.
 */
describe("POST /v1/pipeline", () => {
  let stack: Stack;
  let hooks: LocalServer;
  let client: Client;
  let other: Client;
  let scratch: { path: string; dispose(): Promise<void> };

  const account = async (as = client) => (await as.get("/v1/account")).body;
  const submit = (files: string[], steps: unknown, fields: Record<string, string> = {}, as = client) =>
    as.postFiles(
      "/v1/pipeline",
      files.map((path) => ({ path })),
      undefined,
      { steps: JSON.stringify(steps), ...fields },
    );
  /** Submits, expects 202 with the steps' credits, waits for the end; the job and its outputs on disk. */
  const run = async (
    files: string[],
    steps: Step[],
    credits: number,
    fields: Record<string, string> = {},
  ) => {
    const created = await submit(files, steps, fields);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({ status: "queued", credits });
    const job = await client.waitForJob(String(created.body.id), 240_000);
    const outputs: string[] = [];
    for (const [index, output] of (job.outputs ?? []).entries()) {
      const download = await client.download(String(output.url));
      expect(download.status).toBe(200);
      const path = join(scratch.path, `${job.id}-${index}-${output.name}`);
      await writeFile(path, download.bytes);
      outputs.push(path);
    }
    return { job, outputs };
  };
  const expectStepsDone = (job: JobBody, operations: string[]) => {
    expect(job.operation).toBe("pipeline");
    expect(job.steps?.map((step) => [step.operation, step.status])).toEqual(
      operations.map((operation) => [operation, "done"]),
    );
    for (const step of job.steps ?? [])
      expect(Date.parse(step.finishedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(step.startedAt ?? ""));
  };

  beforeAll(async () => {
    // Webhook deliveries (204), and a PDF to download as a URL input.
    const pdf = await readFile(samplePdf);
    hooks = await startLocalServer((req, res) => {
      if (req.url === "/sample.pdf") {
        res.setHeader("content-type", "application/pdf");
        res.end(pdf);
        return;
      }
      res.statusCode = 204;
      res.end();
    });
    stack = await startStack({
      database: "postgres",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${hooks.port}` },
    });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    other = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    scratch = await createTempDir("octavo-pipeline-");
  });
  afterAll(async () => {
    await stack?.close();
    await hooks?.close();
    await scratch?.dispose();
  });

  it("runs ocr → compress → protect on a scan: one job, one webhook, its steps, the sum of their credits charged once", async () => {
    const before = Number((await account()).creditsUsed);
    const steps = [
      { operation: "ocr", options: { languages: ["eng"] } },
      { operation: "compress" },
      { operation: "protect", options: { userPassword: "pipeline-secret" } },
    ];
    const { job, outputs } = await run([scan], steps, 6, { webhook_url: `${hooks.url}/ocr-chain` });
    expect(job.status, job.message).toBe("done");
    expectStepsDone(job, ["ocr", "compress", "protect"]);
    expect(job.credits).toBe(6);
    expect(Number((await account()).creditsUsed) - before).toBe(6);
    expect(outputs).toHaveLength(1);
    const [output = ""] = outputs;
    expect(job.outputs?.[0]?.name).toBe("ocrmypdf_linn.pdf");
    expect(await requiresPassword(output)).toBe(true);
    expect(await qpdfCheck(output, "pipeline-secret")).toBe(0);
    // The OCR'd text survived compression and encryption: most of the ground truth's words are there.
    const text = execFileSync("pdftotext", ["-upw", "pipeline-secret", output, "-"], { encoding: "utf8" });
    const truth = wordsOf(await readFile(scanText, "utf8"));
    const found = wordsOf(text);
    expect([...truth].filter((word) => found.has(word)).length / truth.size).toBeGreaterThan(0.7);
    // One webhook, the same Job.
    const delivery = await waitFor(
      "the webhook",
      () => hooks.requests.find((request) => request.url === "/ocr-chain"),
      20_000,
    );
    expect(JSON.parse(delivery.body)).toMatchObject({ id: job.id, status: "done", operation: "pipeline" });
    expect(hooks.requests.filter((request) => request.url === "/ocr-chain")).toHaveLength(1);
  }, 300_000);

  it("runs word-to-pdf → pdf-to-pdfa: a PDF/A from a Word file", async () => {
    const { job, outputs } = await run(
      [docx],
      [{ operation: "word-to-pdf" }, { operation: "pdf-to-pdfa" }],
      4,
    );
    expect(job.status, job.message).toBe("done");
    expectStepsDone(job, ["word-to-pdf", "pdf-to-pdfa"]);
    expect(job.outputs?.map((output) => output.name)).toEqual(["pydocx_having-images.pdf"]);
    const meta = execFileSync("pdfinfo", ["-meta", outputs[0] ?? ""], { encoding: "utf8" });
    expect(meta).toMatch(/pdfaid:part[^0-9]*2/);
  }, 300_000);

  it("runs repair → split on a damaged file, and split → rotate on every part", async () => {
    const repaired = await run([damaged], [{ operation: "repair" }, { operation: "split" }], 2);
    expect(repaired.job.status, repaired.job.message).toBe("done");
    expectStepsDone(repaired.job, ["repair", "split"]);
    expect(repaired.outputs).toHaveLength(3);
    for (const output of repaired.outputs) {
      expect(await pageCount(output)).toBe(1);
      expect(await qpdfCheck(output, "pipeline-secret")).toBe(0);
    }
    const parts = await run(
      [damaged],
      [{ operation: "repair" }, { operation: "split" }, { operation: "rotate", options: { angle: 90 } }],
      3,
    );
    expect(parts.job.status, parts.job.message).toBe("done");
    expect(parts.job.outputs?.map((output) => output.name)).toEqual(
      repaired.job.outputs?.map((output) => output.name),
    );
    for (const output of parts.outputs) expect(await pageRotations(output)).toEqual([90]);
  }, 300_000);

  it("runs merge → rotate → compress: one rotated PDF of every page", async () => {
    const second = corpusPath("general/cabinet_text_only_pdfa1b.pdf");
    const pages = (await pageCount(samplePdf)) + (await pageCount(second));
    const { job, outputs } = await run(
      [samplePdf, second],
      [{ operation: "merge" }, { operation: "rotate", options: { angle: 90 } }, { operation: "compress" }],
      4,
    );
    expect(job.status, job.message).toBe("done");
    expectStepsDone(job, ["merge", "rotate", "compress"]);
    expect(outputs).toHaveLength(1);
    expect(await pageRotations(outputs[0] ?? "")).toEqual(Array.from({ length: pages }, () => 90));
  }, 300_000);

  it("runs html-to-pdf → protect on an uploaded page", async () => {
    const { job, outputs } = await run(
      [html],
      [{ operation: "html-to-pdf" }, { operation: "protect", options: { userPassword: "page-secret" } }],
      3,
    );
    expect(job.status, job.message).toBe("done");
    expectStepsDone(job, ["html-to-pdf", "protect"]);
    expect(await requiresPassword(outputs[0] ?? "")).toBe(true);
    expect(await pageCount(outputs[0] ?? "", "page-secret")).toBeGreaterThan(0);
  }, 300_000);

  it("fails the job with the failing step's code and names the step; the later steps never run; nothing is charged", async () => {
    const before = Number((await account()).creditsUsed);
    const { job } = await run(
      [samplePdf],
      [
        { operation: "protect", options: { userPassword: "right" } },
        { operation: "unlock", options: { password: "wrong" } },
        { operation: "compress" },
      ],
      4,
    );
    expect(job).toMatchObject({ status: "failed", error: "wrong_password" });
    expect(job.message).toMatch(/^Step 2 of 3 \(unlock\) failed: /);
    expect(job.steps?.map((step) => [step.operation, step.status, step.error])).toEqual([
      ["protect", "done", undefined],
      ["unlock", "failed", "wrong_password"],
      ["compress", "queued", undefined],
    ]);
    expect(job.outputs).toBeUndefined();
    expect(Number((await account()).creditsUsed)).toBe(before);
    // An encrypted input fails the first step as the operation alone would.
    const locked = await run([encrypted], [{ operation: "rotate" }, { operation: "compress" }], 3);
    expect(locked.job).toMatchObject({ status: "failed", error: "password_required" });
    expect(locked.job.message).toMatch(/^Step 1 of 2 \(rotate\) failed: /);
  });

  it("refuses a pipeline that cannot run with 400 invalid_options naming the step, before anything is kept", async () => {
    const refusals: [steps: unknown, detail: string | RegExp][] = [
      [[], "steps: must be an array of 1 to 5 steps; it is empty"],
      [
        Array.from({ length: 6 }, () => ({ operation: "rotate" })),
        "steps: must be an array of 1 to 5 steps; it has 6",
      ],
      [
        [{ operation: "split" }, { operation: "merge" }],
        /^steps\[1\]: merge needs 2 to 20 files and steps\[0\] \(split\) yields an unknown number of files$/,
      ],
      [
        [{ operation: "compress" }, { operation: "word-to-pdf" }],
        /^steps\[1\]: word-to-pdf takes .* files, and steps\[0\] \(compress\) yields \.pdf$/,
      ],
      [
        [{ operation: "rotate", options: { angle: 45 } }],
        /^steps\[0\]\.options\.angle: must be one of 90, 180, 270/,
      ],
      [[{ operation: "/v1/merge" }], 'steps[0].operation: "/v1/merge" is not an operation id; use "merge"'],
      [
        [{ operation: "protect", options: { userPassword: "x" } }, { operation: "compress" }],
        "steps[1]: compress cannot read the encrypted output of protect (steps[0]); put protect last",
      ],
      [{ operation: "rotate" }, "steps: must be an array of 1 to 5 steps"],
    ];
    for (const [steps, detail] of refusals) {
      const answer = await submit([samplePdf], steps);
      expect(answer.status, JSON.stringify(steps)).toBe(400);
      expect(answer.body.error).toBe("invalid_options");
      expect(answer.body.detail).toEqual(typeof detail === "string" ? detail : expect.stringMatching(detail));
    }
    const notJson = await client.postFiles("/v1/pipeline", [{ path: samplePdf }], undefined, { steps: "[{" });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({
      error: "invalid_options",
      detail: expect.stringMatching(/^steps: must be a JSON array/),
    });
    const missing = await client.postFiles("/v1/pipeline", [{ path: samplePdf }]);
    expect(missing.body).toMatchObject({
      error: "invalid_options",
      detail: "steps: must be an array of 1 to 5 steps",
    });
    // The first step's file rules apply to the inputs.
    const wrongType = await submit([docx], [{ operation: "rotate" }]);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({
      error: "invalid_input",
      detail: "extension: must be one of .pdf",
    });
    const tooFew = await submit([samplePdf], [{ operation: "merge" }]);
    expect(tooFew.body).toMatchObject({ error: "invalid_input" });
    // Form B: URLs through the outbound policy, and only the pipeline's fields.
    const blocked = await client.postJson("/v1/pipeline", {
      url: "http://10.1.2.3/a.pdf",
      steps: [{ operation: "rotate" }],
    });
    expect(blocked.status).toBe(400);
    expect(blocked.body.error).toBe("blocked_url");
    const stray = await client.postJson("/v1/pipeline", { url: "https://example.com/a.pdf", options: {} });
    expect(stray.body).toMatchObject({
      error: "invalid_request",
      detail: "The fields are url, urls, steps and webhook_url.",
    });
    // Nothing was kept from any of them.
    expect((await client.get("/v1/jobs?operation=pipeline&status=queued")).body.data).toEqual([]);
  });

  it("keeps a pipeline to its account, takes URL inputs and an Idempotency-Key, and lists it under operation=pipeline", async () => {
    const keyed = () =>
      fetch(`${stack.baseUrl}/v1/pipeline`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${client.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": `pipeline-${stack.config.queuePrefix}`,
        },
        body: JSON.stringify({
          url: `${hooks.url}/sample.pdf`,
          steps: [{ operation: "rotate", options: { angle: 180 } }, { operation: "compress" }],
        }),
      });
    const first = await keyed();
    expect(first.status).toBe(202);
    const id = ((await first.json()) as { id: string }).id;
    const second = await keyed();
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(((await second.json()) as { id: string }).id).toBe(id);
    const job = await client.waitForJob(id);
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.map((output) => output.name)).toEqual(["sample.pdf"]);

    expect((await other.get(`/v1/jobs/${id}`)).status).toBe(404);
    expect((await other.send("POST", `/v1/jobs/${id}/cancel`)).status).toBe(404);
    expect((await other.send("DELETE", `/v1/jobs/${id}`)).status).toBe(404);
    const listed = (await client.get("/v1/jobs?operation=pipeline&limit=100")).body.data as JobBody[];
    expect(listed.map((item) => item.id)).toContain(id);
    expect(listed.every((item) => item.operation === "pipeline" && item.steps?.length)).toBe(true);
    expect((await other.get("/v1/jobs?operation=pipeline")).body.data).toEqual([]);
  });
});

describe("a pipeline whose worker dies mid-step", () => {
  let stack: Stack;
  const workers: OctavoProcess[] = [];

  beforeAll(async () => {
    // No workers in this process: they are separate processes, so one can be killed. A dead worker's
    // job goes to another after its lock: 2 s here instead of 30.
    stack = await startStack({
      database: "postgres",
      redis: "shared",
      workers: false,
      env: { OCTAVO_JOB_LOCK_SECONDS: "2" },
    });
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.pid) killProcessTree(worker.pid, { includeRoot: true });
    await Promise.all(workers.map(exited));
    await stack?.close();
  });

  const startWorker = async () => {
    const worker = spawnOctavo(["worker", "--queues", "pipeline"], {
      ...stack.env,
      OCTAVO_LOG_LEVEL: "info",
    });
    workers.push(worker);
    await waitFor(
      "the pipeline worker to start",
      () => {
        if (worker.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
        return logLines(worker, "workers started").length > 0 ? true : undefined;
      },
      60_000,
    );
    return worker;
  };

  it("is run again as a whole by another worker, and charged once", async () => {
    const { apiKey } = await stack.createAccount("business");
    const client = new Client(stack.baseUrl, apiKey);
    const first = await startWorker();
    const created = await client.postFiles(
      "/v1/pipeline",
      [{ path: corpusPath("scanned/ocrmypdf_multipage.pdf") }],
      undefined,
      {
        steps: JSON.stringify([
          { operation: "ocr", options: { languages: ["eng"] } },
          { operation: "compress" },
          { operation: "protect", options: { userPassword: "after-the-crash" } },
        ]),
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = String(created.body.id);
    // Killed while its OCR runs, engines and all.
    await waitFor(
      "the OCR step to run",
      async () =>
        ((await client.get(`/v1/jobs/${id}`)).body.steps as JobBody["steps"])?.[0]?.status === "active" ||
        undefined,
      120_000,
    );
    killProcessTree(first.pid ?? 0, { includeRoot: true });
    await exited(first);
    const second = await startWorker();
    const job = await client.waitForJob(id, 300_000);
    expect(job.status, job.message).toBe("done");
    expect(job.steps?.map((step) => step.status)).toEqual(["done", "done", "done"]);
    // The second worker started it over, from the first step.
    expect(logLines(second, "job started").map((line) => [line.jobId, line.attempt])).toEqual([[id, 2]]);
    const charges = await kyselyOf(stack.runtime.database)
      .selectFrom("credit_ledger")
      .select(["amount", "kind"])
      .where("job_id", "=", id)
      .execute();
    expect(charges).toEqual([{ amount: 6, kind: "charge" }]);
    expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 6, creditsReserved: 0 });
  }, 420_000);
});
