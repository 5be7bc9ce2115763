import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Octavo } from "@octavo/client";
import { createTempDir, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageCount, qpdfCheck } from "./support/pdf-checks.js";
import { freePort, type Stack, startStack } from "./support/stack.js";

const examples = join(import.meta.dirname, "..", "..", "..", "examples");
const server = join(examples, "webhook-receiver", "src", "server.mjs");
const samples = [join(examples, "sample-a.pdf"), join(examples, "sample-b.pdf")];
/** A second secret the receiver also accepts, as during a rotation (comma-separated). */
const nextSecret = "whsec_next_secret_during_rotation";

/** The JSON lines the receiver logged, parsed; other lines are skipped. */
function loggedEvents(output: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("examples/webhook-receiver, run as a user runs it", () => {
  let stack: Stack;
  let account: { accountId: string; apiKey: string; webhookSecret: string };
  let downloads: Awaited<ReturnType<typeof createTempDir>>;
  let receiver: ChildProcess;
  let output = "";
  let endpoint: string;

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}/webhooks/octavo`;
    stack = await startStack({
      database: "sqlite",
      redis: "supervised",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${port}` },
    });
    account = await stack.createAccount("business");
    downloads = await createTempDir("octavo-webhook-downloads-");
    // Only what a user would set: no inherited OCTAVO_* or HOST from the test's environment.
    receiver = spawn(process.execPath, [server], {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        OCTAVO_WEBHOOK_SECRET: `${account.webhookSecret},${nextSecret}`,
        OCTAVO_API_KEY: account.apiKey,
        OCTAVO_BASE_URL: stack.baseUrl,
        OCTAVO_DOWNLOAD_DIR: downloads.path,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    receiver.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const listening = await waitFor("the receiver to listen", () =>
      output.split("\n").find((line) => line.includes("listening")),
    );
    expect(listening).toContain(`:${port}`);
  });
  afterAll(async () => {
    if (receiver && receiver.exitCode === null) {
      const exited = new Promise((resolve) => receiver.once("exit", resolve));
      receiver.kill();
      await exited;
    }
    await stack?.close();
    await downloads?.dispose();
  });

  it("logs the verified job-finished event and downloads the merged PDF", async () => {
    const client = new Octavo({ apiKey: account.apiKey, baseUrl: stack.baseUrl });
    const created = await client.merge(samples, {}, { webhookUrl: endpoint });

    const finished = await waitFor("the receiver to log the job", () =>
      loggedEvents(output).find((event) => event.event === "job.finished" && event.id === created.id),
    );
    expect(finished).toEqual({
      event: "job.finished",
      id: created.id,
      status: "done",
      outputs: ["merged.pdf"],
    });

    const downloaded = await waitFor("the receiver to download the output", () =>
      loggedEvents(output).find((event) => event.event === "output.downloaded" && event.id === created.id),
    );
    const path = join(downloads.path, created.id, "merged.pdf");
    expect(downloaded.path).toBe(path);
    const bytes = await readFile(path);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(await qpdfCheck(path)).not.toBe(2);
    const inputPages = (await pageCount(samples[0] ?? "")) + (await pageCount(samples[1] ?? ""));
    expect(await pageCount(path)).toBe(inputPages);
  });

  it("refuses forged and unsigned deliveries with 400 and the reason", async () => {
    const body = JSON.stringify({ id: "00000000-0000-4000-8000-000000000000", status: "done", outputs: [] });
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>) =>
      fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

    const forged = await post({ "SVC-Signature": `t=${now},v1=${"0".repeat(64)}` });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: "signature_mismatch" });

    const unsigned = await post({});
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toMatchObject({ error: "missing_signature" });

    const stale = `t=${now - 3600},v1=${createHmac("sha256", account.webhookSecret)
      .update(`${now - 3600}.${body}`)
      .digest("hex")}`;
    const replayed = await post({ "SVC-Signature": stale });
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toMatchObject({ error: "timestamp_outside_tolerance" });

    await waitFor("the rejections in the log", () =>
      loggedEvents(output).filter((event) => event.event === "webhook.rejected").length >= 3
        ? true
        : undefined,
    );
    expect(
      loggedEvents(output)
        .filter((event) => event.event === "webhook.rejected")
        .map((event) => event.reason),
    ).toEqual(["signature_mismatch", "missing_signature", "timestamp_outside_tolerance"]);
  });

  it("accepts a delivery signed with the second of its comma-separated secrets", async () => {
    const id = "11111111-1111-4111-8111-111111111111";
    const body = JSON.stringify({ id, status: "failed", error: "password_required", outputs: [] });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac("sha256", nextSecret).update(`${t}.${body}`).digest("hex");
    const answer = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", "SVC-Signature": `t=${t},v1=${v1}` },
      body,
    });
    expect(answer.status).toBe(204);
    const logged = await waitFor("the receiver to log the failed job", () =>
      loggedEvents(output).find((event) => event.event === "job.finished" && event.id === id),
    );
    expect(logged).toEqual({ event: "job.finished", id, status: "failed", outputs: [] });
  });

  it("never prints the secrets or the API key", () => {
    expect(output).toContain("job.finished");
    for (const secret of [account.webhookSecret, nextSecret, account.apiKey])
      expect(output).not.toContain(secret);
  });
});
