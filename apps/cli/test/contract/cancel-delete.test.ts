import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type DatabaseKind, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { type LocalServer, startLocalServer } from "../support/servers.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = fileURLToPath(new URL("../../../../examples/sample-a.pdf", import.meta.url));

/**
 * POST /v1/jobs/{id}/cancel and DELETE /v1/jobs/{id} through the real API and workers. A job is held
 * `active` for as long as a test needs by rendering a page (html-to-pdf's options.url) from a local
 * server that takes the connection and never answers: the browser waits, costing no CPU, until the job
 * is canceled or its 5-minute deadline passes. One engine slot per lane makes a second such job wait
 * `queued`.
 */
describe.each<DatabaseKind>(["sqlite", "postgres"])("cancel and delete on %s", (database) => {
  let stack: Stack;
  let site: LocalServer;
  let client: Client;
  let other: Client;

  const jobOf = async (id: string, as = client) =>
    (await as.get(`/v1/jobs/${id}`)).body as unknown as JobBody;
  const hangingPage = async (path: string, webhookUrl?: string) => {
    const body: Record<string, unknown> = { options: { url: `${site.url}/hang${path}` } };
    if (webhookUrl) body.webhook_url = webhookUrl;
    const created = await client.postJson("/v1/convert/html-to-pdf", body);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    return String(created.body.id);
  };
  const rotate = async (as = client) => {
    const created = await as.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    return String(created.body.id);
  };
  const stored = async (jobId: string, role: "input" | "output") => {
    const files = await stack.runtime.jobs.files(jobId, role);
    return (await Promise.all(files.map((file) => stack.runtime.store.stat(file.storage_key)))).filter(
      Boolean,
    );
  };
  const account = async () => (await client.get("/v1/account")).body;

  beforeAll(async () => {
    // /hang/...: the connection is taken and never answered; /hooks/...: webhook deliveries, answered 204.
    site = await startLocalServer((req, res) => {
      if (!req.url?.startsWith("/hang")) {
        res.statusCode = 204;
        res.end();
      }
    });
    stack = await startStack({
      database,
      redis: database === "sqlite" ? "supervised" : "shared",
      env: { OCTAVO_URL_ALLOWLIST: `127.0.0.1:${site.port}`, OCTAVO_WORKER_CONCURRENCY: "1" },
    });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    other = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  });
  afterAll(async () => {
    await stack?.close();
    await site?.close();
  });

  it("cancels a queued job and a running one: both fail canceled, uncharged, inputs gone, engines stopped, webhook sent", async () => {
    const running = await hangingPage("/a", `${site.url}/hooks/running`);
    await waitFor(
      "the job to start",
      async () => ((await jobOf(running)).status === "active" ? true : undefined),
      60_000,
    );
    const waiting = await hangingPage("/b");
    expect((await jobOf(waiting)).status).toBe("queued");
    expect((await account()).creditsReserved).toBe(4);

    // Queued: off its queue at once, never started.
    const canceledQueued = await client.send("POST", `/v1/jobs/${waiting}/cancel`);
    expect(canceledQueued.status).toBe(200);
    expect(canceledQueued.body).toMatchObject({ id: waiting, status: "failed", error: "canceled" });
    expect(String(canceledQueued.body.message)).toContain("canceled");
    const depth = await stack.runtime.producer.depth("html-to-pdf");
    expect(depth.waiting + depth.delayed).toBe(0);

    // Running: its page stops loading; the worker's run ends within seconds, not at the 5-minute deadline.
    const canceledRunning = await client.send("POST", `/v1/jobs/${running}/cancel`);
    expect(canceledRunning.status).toBe(200);
    expect(canceledRunning.body).toMatchObject({ id: running, status: "failed", error: "canceled" });
    await waitFor(
      "the worker's run to end",
      async () => ((await stack.runtime.producer.depth("html-to-pdf")).active === 0 ? true : undefined),
      20_000,
    );

    for (const id of [waiting, running]) {
      const job = await jobOf(id);
      expect(job).toMatchObject({ status: "failed", error: "canceled" });
      expect(job.outputs).toBeUndefined();
      expect(await stored(id, "input")).toEqual([]);
      expect(await stored(id, "output")).toEqual([]);
    }
    expect((await jobOf(waiting)).startedAt).toBeUndefined();
    expect(await account()).toMatchObject({ creditsUsed: 0, creditsReserved: 0 });

    // The webhook of the canceled job carries it as GET shows it.
    const delivery = await waitFor(
      "the webhook",
      () => site.requests.find((request) => request.url === "/hooks/running"),
      20_000,
    );
    expect(JSON.parse(delivery.body ?? "{}")).toMatchObject({
      id: running,
      status: "failed",
      error: "canceled",
    });
    expect(String(delivery.headers["svc-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    // The engines still work: the next job runs to the end.
    const next = await rotate();
    expect((await client.waitForJob(next)).status).toBe("done");
  });

  it("answers 409 job_finished for a job that already ended, with its status", async () => {
    const id = await rotate();
    expect((await client.waitForJob(id)).status).toBe("done");
    const answer = await client.send("POST", `/v1/jobs/${id}/cancel`);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: "job_finished", detail: "status: done" });
    // A canceled job is finished too.
    const canceled = await hangingPage("/c");
    expect((await client.send("POST", `/v1/jobs/${canceled}/cancel`)).status).toBe(200);
    const again = await client.send("POST", `/v1/jobs/${canceled}/cancel`);
    expect(again.body).toMatchObject({ error: "job_finished", detail: "status: failed" });
  });

  it("settles the race with completion by whichever ends the job first, never both", async () => {
    // Cancels sent from before the job starts to after it ends: each job either is canceled (nothing
    // charged, no output kept anywhere) or keeps its real outcome (409, charged, its output downloadable).
    // How long a rotation runs here, from its acceptance to its end (the median of three).
    const runMs = async () => {
      const job = await client.waitForJob(await rotate());
      return Date.parse(job.finishedAt ?? "") - Date.parse(job.createdAt);
    };
    const spans = [await runMs(), await runMs(), await runMs()].sort((a, b) => a - b);
    const span = spans[1] ?? 0;
    const before = Number((await account()).creditsUsed);
    const outcomes: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      // A canceled run's sandbox process is killed: an uncanceled job first starts the next one.
      await client.waitForJob(await rotate());
      const id = await rotate();
      // The last cancel comes after the job has ended, by its status rather than the clock: a busy
      // machine once ran a rotation for more than three times its median.
      if (index === 11) await client.waitForJob(id);
      else await delay((index * 3 * span) / 11);
      const answer = await client.send("POST", `/v1/jobs/${id}/cancel`);
      const job = await client.waitForJob(id);
      if (answer.status === 200) {
        expect(job).toMatchObject({ status: "failed", error: "canceled" });
        expect(await stored(id, "output")).toEqual([]);
      } else {
        expect(answer.status).toBe(409);
        expect(answer.body.detail).toBe(`status: ${job.status}`);
        expect(job.status).toBe("done");
        const download = await client.download(String(job.outputs?.[0]?.url));
        expect(download.status).toBe(200);
        expect(download.bytes.subarray(0, 5).toString()).toBe("%PDF-");
      }
      expect(await stored(id, "input")).toEqual([]);
      outcomes.push(answer.status === 200 ? "canceled" : "done");
    }
    const charged = Number((await account()).creditsUsed) - before;
    // The uncanceled jobs run between the race's, one each, and are charged too.
    expect(charged).toBe(12 + outcomes.filter((outcome) => outcome === "done").length);
    // Sent early, a cancel beats the run; sent after the job ended, it leaves the outcome alone. Which early
    // cancel wins is the machine's: on a fast one a rotation has ended before even a cancel sent at once.
    expect(outcomes.slice(0, 4)).toContain("canceled");
    expect(outcomes.at(-1)).toBe("done");
  });

  it("deletes a finished job's results at once, keeps the job, and answers the same when asked again", async () => {
    const id = await rotate();
    const done = await client.waitForJob(id);
    const url = String(done.outputs?.[0]?.url);
    expect(await stored(id, "output")).toHaveLength(1);
    const used = (await account()).creditsUsed;

    const deleted = await client.send("DELETE", `/v1/jobs/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toEqual({});
    expect(await stored(id, "output")).toEqual([]);
    const job = await jobOf(id);
    expect(job).toMatchObject({ status: "done", credits: 1, finishedAt: done.finishedAt });
    expect(job.outputs).toEqual([
      {
        name: done.outputs?.[0]?.name,
        size: done.outputs?.[0]?.size,
        contentType: "application/pdf",
        expired: true,
        deleted: true,
      },
    ]);
    const link = await client.download(url);
    expect(link.status).toBe(410);
    expect(JSON.parse(link.bytes.toString())).toMatchObject({ error: "result_expired" });
    expect(JSON.parse(link.bytes.toString()).detail).toContain("at your request");
    expect((await account()).creditsUsed).toBe(used);
    expect((await client.send("DELETE", `/v1/jobs/${id}`)).status).toBe(204);
    // A failed job has no outputs: deleting it is allowed and changes nothing visible.
    const failed = await hangingPage("/d");
    await client.send("POST", `/v1/jobs/${failed}/cancel`);
    expect((await client.send("DELETE", `/v1/jobs/${failed}`)).status).toBe(204);
  });

  it("refuses to delete a job still queued or running: 409 job_not_finished", async () => {
    const id = await hangingPage("/e");
    const answer = await client.send("DELETE", `/v1/jobs/${id}`);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: "job_not_finished" });
    expect(String(answer.body.detail)).toMatch(/^status: (queued|active)\. Cancel it with POST/);
    await client.send("POST", `/v1/jobs/${id}/cancel`);
  });

  it("keeps every account's jobs to itself: another account's or an unknown id answers 404 and changes nothing", async () => {
    const theirs = await rotate(other);
    const done = await other.waitForJob(theirs);
    for (const path of [
      `/v1/jobs/${theirs}/cancel`,
      "/v1/jobs/00000000-0000-4000-8000-000000000000/cancel",
      "/v1/jobs/nope/cancel",
    ]) {
      const answer = await client.send("POST", path);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: "not_found" });
    }
    expect((await client.send("DELETE", `/v1/jobs/${theirs}`)).status).toBe(404);
    const after = await jobOf(theirs, other);
    expect(after.outputs?.[0]).toMatchObject({ expired: false });
    expect(after.outputs?.[0]?.deleted).toBeUndefined();
    expect(after.status).toBe(done.status);
    // Without a key: 401 before anything is looked up.
    expect(
      (await new Client(stack.baseUrl, undefined).send("POST", `/v1/jobs/${theirs}/cancel`)).status,
    ).toBe(401);
    expect((await new Client(stack.baseUrl, undefined).send("DELETE", `/v1/jobs/${theirs}`)).status).toBe(
      401,
    );
  });

  it("answers 405 with Allow for other methods on the new paths", async () => {
    const id = await rotate();
    const put = await client.send("PUT", `/v1/jobs/${id}/cancel`);
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("POST");
    const onJob = await client.send("PUT", `/v1/jobs/${id}`);
    expect(onJob.status).toBe(405);
    expect(onJob.headers.get("allow")).toBe("GET, HEAD, DELETE");
  });
});
