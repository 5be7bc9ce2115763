import { fileURLToPath } from "node:url";
import { kyselyOf } from "@octavo/db/repositories";
import { childrenMatching, corpusPath, processesMatching, waitFor } from "@octavo/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { type Cluster, exited, logLines, type OctavoProcess, startCluster } from "./support/cluster.js";

const bigFiles = [
  "general/govdocs_error_set_2_064034.pdf",
  "general/govdocs_error_set_1_316267.pdf",
  "general/samplefiles_GeoTopo-komprimiert.pdf",
].map((file) => corpusPath(file));
const small = fileURLToPath(new URL("../../../examples/sample-a.pdf", import.meta.url));

/** A merge of `parts` big files: long enough (seconds) to catch its worker in the middle of it. */
const bigMerge = (parts: number) =>
  Array.from({ length: parts }, (_, index) => ({
    path: bigFiles[index % 3] ?? "",
    name: `part-${index}.pdf`,
  }));

const startedBy = (worker: OctavoProcess, jobId: string) =>
  logLines(worker, "job started").some((line) => line.jobId === jobId);
const doneBy = (worker: OctavoProcess, jobId: string) =>
  logLines(worker, "job done").some((line) => line.jobId === jobId);
/** The job row may turn `done` a moment before the worker's log line reaches us. */
const loggedDone = (worker: OctavoProcess, jobId: string) =>
  waitFor(`the worker to log job ${jobId} done`, () => (doneBy(worker, jobId) ? true : undefined), 10_000);

describe("a cluster: two API nodes, workers per queue, PostgreSQL, shared Redis and S3", () => {
  let cluster: Cluster;
  let nodes: Client[];
  const workers: OctavoProcess[] = [];

  beforeAll(async () => {
    // Node 1 hands out presigned S3 links, node 0 the API's own signed links: both read the same
    // job rows. A 2 s lock makes a dead worker's job move on quickly.
    cluster = await startCluster({
      apis: [{}, { OCTAVO_DOWNLOAD_LINKS: "presigned" }],
      env: { OCTAVO_JOB_LOCK_SECONDS: "2" },
    });
  });
  // Each test starts its own workers; none may take a later test's jobs.
  afterEach(async () => {
    for (const worker of workers) worker.kill("SIGKILL");
    await Promise.all(workers.splice(0).map(exited));
  });
  afterAll(async () => cluster?.close());

  const clientsFor = async (plan: "free" | "business") => {
    const { apiKey } = await cluster.createAccount(plan);
    nodes = cluster.apiUrls.map((url) => new Client(url, apiKey));
    return nodes as [Client, Client];
  };
  const startWorker = async (queues: string, env: Record<string, string> = {}) => {
    const worker = await cluster.startWorker(queues, env);
    workers.push(worker);
    return worker;
  };
  const stop = async (...stopping: OctavoProcess[]) => {
    for (const worker of stopping) worker.kill("SIGTERM");
    return Promise.all(stopping.map(exited));
  };
  const chargesOf = async (jobId: string) =>
    kyselyOf(cluster.runtime.database)
      .selectFrom("credit_ledger")
      .selectAll()
      .where("job_id", "=", jobId)
      .execute();
  const attemptsOf = async (jobId: string) =>
    (
      await kyselyOf(cluster.runtime.database)
        .selectFrom("jobs")
        .select("attempts")
        .where("id", "=", jobId)
        .executeTakeFirstOrThrow()
    ).attempts;

  it("reads a job created on one node from the other, run by the worker of its queue", async () => {
    const [first, second] = await clientsFor("business");
    const pdfWorker = await startWorker("merge,webhooks", { OCTAVO_HEALTH_PORT: "0" });
    const pageWorker = await startWorker("rotate,split");

    const merge = await first.postFiles("/v1/merge", [{ path: small }, { path: small }]);
    expect(merge.status).toBe(202);
    const mergeId = merge.body.id as string;
    const merged = await second.waitForJob(mergeId, 60_000);
    expect(merged.status).toBe("done");
    await loggedDone(pdfWorker, mergeId);
    expect(startedBy(pageWorker, mergeId)).toBe(false);

    const rotate = await second.postFiles("/v1/rotate", [{ path: small }], { angle: 90 });
    expect(rotate.status).toBe(202);
    const rotateId = rotate.body.id as string;
    expect((await first.waitForJob(rotateId, 60_000)).status).toBe("done");
    await loggedDone(pageWorker, rotateId);
    expect(startedBy(pdfWorker, rotateId)).toBe(false);

    // The same output through both kinds of link: streamed from S3 by node 0, presigned by node 1.
    const viaApi = (await first.get(`/v1/jobs/${mergeId}`)).body as {
      outputs: { url: string; size: number }[];
    };
    const viaS3 = (await second.get(`/v1/jobs/${mergeId}`)).body as { outputs: { url: string }[] };
    expect(viaApi.outputs[0]?.url).toMatch(new RegExp(`^${cluster.apiUrls[0]}/v1/files/`));
    expect(viaS3.outputs[0]?.url).toMatch(new RegExp(`^${cluster.s3.endpointUrl}/.*X-Amz-Signature=`));
    const fromApi = await first.download(viaApi.outputs[0]?.url ?? "");
    const fromS3 = await first.download(viaS3.outputs[0]?.url ?? "");
    expect(fromApi.status).toBe(200);
    expect(fromS3.status).toBe(200);
    expect(fromApi.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(fromS3.bytes.equals(fromApi.bytes)).toBe(true);
    expect(fromApi.bytes.length).toBe(viaApi.outputs[0]?.size);
    expect(fromS3.headers.get("content-disposition")).toContain("merged.pdf");

    // The inputs went to S3 and were deleted once the jobs ended; the outputs are there.
    // (The worker deletes them just after it settles a job, so the client can hear of the end first.)
    const db = kyselyOf(cluster.runtime.database);
    const stored = await waitFor("the jobs' inputs to be deleted", async () => {
      const files = await db
        .selectFrom("job_files")
        .select(["role", "storage_key", "deleted_at"])
        .where("job_id", "in", [mergeId, rotateId])
        .execute();
      return files.every((file) => file.role !== "input" || file.deleted_at !== null) ? files : undefined;
    });
    for (const file of stored) {
      const present = (await cluster.runtime.store.stat(file.storage_key)) !== undefined;
      expect(present, `${file.role} ${file.storage_key}`).toBe(file.role === "output");
      expect(file.deleted_at !== null).toBe(file.role === "input");
    }

    // A worker answers the probes on OCTAVO_HEALTH_PORT (0 here: any free port, which it logs).
    const probes = await waitFor("the worker's probe address", () => {
      const address = logLines(pdfWorker, "worker probes listening")[0]?.address;
      return typeof address === "string" ? address : undefined;
    });
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${probes}/readyz`)).json()).toMatchObject({
      status: "ready",
      checks: { database: "ok", redis: "ok", storage: "ok" },
    });
    expect(await stop(pdfWorker, pageWorker)).toEqual([0, 0]);
  });

  it("counts the rate limit across both nodes", async () => {
    const [first, second] = await clientsFor("free"); // 10 requests a minute
    const statuses: number[] = [];
    for (let request = 0; request < 12; request += 1) {
      const node = request % 2 === 0 ? first : second;
      const answer = await node.get("/v1/account");
      statuses.push(answer.status);
      if (request === 9) expect(answer.headers.get("ratelimit")).toMatch(/r=0;/);
      if (answer.status === 429) {
        expect(answer.body.error).toBe("rate_limited");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
  });

  it("finishes a job on another worker when its worker is killed, and charges it once", async () => {
    const [first, second] = await clientsFor("business");
    const one = await startWorker("merge=1");
    const other = await startWorker("merge=1");
    const candidates = [one, other];
    const created = await first.postFiles("/v1/merge", bigMerge(18));
    expect(created.status).toBe(202);
    const jobId = created.body.id as string;

    const victim = await waitFor("a worker to start the job", () =>
      candidates.find((worker) => startedBy(worker, jobId)),
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${candidates.map((worker) => worker.output()).join("\n")}`);
    });
    // Killed while its engine runs: once its inputs are copied from S3 into the sandbox.
    const sandboxes = await waitFor("the engine's sandbox to start", () => {
      const pids = childrenMatching(victim.pid ?? 0, "sandbox/child.js");
      return pids.length > 0 ? pids : undefined;
    });
    victim.kill("SIGKILL");
    // The sandboxed engine process notices its worker is gone and ends itself and its tools.
    await waitFor(
      "the orphaned sandboxes to exit",
      () => (processesMatching("sandbox/child.js").some((pid) => sandboxes.includes(pid)) ? undefined : true),
      10_000,
    );
    const survivor = victim === one ? other : one;

    const job = await second.waitForJob(jobId, 120_000);
    expect(job.status, survivor.output()).toBe("done");
    await loggedDone(survivor, jobId);
    expect(await attemptsOf(jobId)).toBe(2);
    expect(await chargesOf(jobId)).toHaveLength(1);
    expect((await first.get("/v1/account")).body).toMatchObject({ creditsUsed: 1, creditsReserved: 0 });
    expect(await stop(survivor)).toEqual([0]);
  }, 180_000);

  it("drains a worker on SIGTERM: the running job finishes there, and it takes no new one", async () => {
    const [first, second] = await clientsFor("business");
    const draining = await startWorker("merge=1");
    const running = await first.postFiles("/v1/merge", bigMerge(6));
    const runningId = running.body.id as string;
    await waitFor("the worker to start the job", () => (startedBy(draining, runningId) ? true : undefined));

    draining.kill("SIGTERM");
    const waiting = await second.postFiles("/v1/merge", [{ path: small }, { path: small }]);
    const waitingId = waiting.body.id as string;
    expect(await exited(draining)).toBe(0);
    await loggedDone(draining, runningId);
    expect(startedBy(draining, waitingId)).toBe(false);
    expect((await second.waitForJob(runningId, 10_000)).status).toBe("done");

    // Nothing was lost: the job sent during the drain waited in the queue for the next worker.
    const next = await startWorker("merge=1");
    expect((await first.waitForJob(waitingId, 60_000)).status).toBe("done");
    await loggedDone(next, waitingId);
    expect(await stop(next)).toEqual([0]);
  }, 180_000);

  it("hands a running job back on SIGTERM past the grace period; the next worker runs it, charged once", async () => {
    const [first] = await clientsFor("business");
    const leaving = await startWorker("merge=1", { OCTAVO_SHUTDOWN_GRACE_SECONDS: "0" });
    const created = await first.postFiles("/v1/merge", bigMerge(18));
    const jobId = created.body.id as string;
    await waitFor("the worker to start the job", () => (startedBy(leaving, jobId) ? true : undefined));

    leaving.kill("SIGTERM");
    expect(await exited(leaving)).toBe(0);
    expect(logLines(leaving, "job handed back on shutdown").map((line) => line.jobId)).toEqual([jobId]);
    expect(doneBy(leaving, jobId)).toBe(false);

    const next = await startWorker("merge=1");
    expect((await first.waitForJob(jobId, 120_000)).status).toBe("done");
    await loggedDone(next, jobId);
    expect(await chargesOf(jobId)).toHaveLength(1);
    expect((await first.get("/v1/account")).body).toMatchObject({ creditsUsed: 1, creditsReserved: 0 });
    expect(await stop(next)).toEqual([0]);
  }, 180_000);
});
