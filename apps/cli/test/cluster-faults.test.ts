import { createServer } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath, waitFor } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { type Cluster, logLines, startCluster } from "./support/cluster.js";
import { startPrivatePostgres } from "./support/private-postgres.js";
import { spawnOctavo } from "./support/processes.js";
import { freePort } from "./support/stack.js";

const small = corpusPath("general/samplefiles_pdflatex-outline.pdf");

/** A refused request: its status (0 when no answer came, the connection failed), why, and when to retry. */
interface Refusal {
  phase: "burst" | "outage" | "after";
  status: number;
  error: unknown;
  retryAfter?: string | null;
}

describe("faults a cluster survives", () => {
  it("PostgreSQL restarted during a cluster run: every accepted job ends, each charged exactly once", async () => {
    // A server of its own, restarted for real: the machine's PostgreSQL serves other tests meanwhile.
    const postgres = await startPrivatePostgres();
    let cluster: Cluster | undefined;
    try {
      // A 2 s lock: a job whose run was cut moves on quickly.
      cluster = await startCluster({
        apis: [{}],
        databaseUrl: postgres.url,
        env: { OCTAVO_JOB_LOCK_SECONDS: "2" },
      });
      const worker = await cluster.startWorker("all");
      const client = new Client(cluster.apiUrls[0] ?? "", (await cluster.createAccount("business")).apiKey);

      const accepted: string[] = [];
      const refused: Refusal[] = [];
      const send = async (phase: Refusal["phase"]) => {
        try {
          const answer = await client.postFiles("/v1/rotate", [{ path: small }], { angle: 90 });
          if (answer.status === 202) accepted.push(answer.body.id as string);
          else {
            const retryAfter = answer.headers.get("retry-after");
            refused.push({ phase, status: answer.status, error: answer.body.error, retryAfter });
          }
          return answer.status;
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause?.code;
          refused.push({ phase, status: 0, error: `${String(error)} (${cause})` });
          return 0;
        }
      };

      // The burst, and the restart once a third of it is in: uploads in flight, jobs queued and running.
      const burst = Promise.all(Array.from({ length: 30 }, () => send("burst")));
      await waitFor("10 jobs accepted, one started", () =>
        accepted.length >= 10 && logLines(worker, "job started").length > 0 ? true : undefined,
      );
      let restarted = false;
      const restart = postgres.restart(2_000).then(() => {
        restarted = true;
      });
      // Requests while it is down (a few, spaced: the plan allows 300 a minute).
      const duringOutage: number[] = [];
      while (!restarted && duringOutage.length < 15) {
        duringOutage.push(await send("outage"));
        await delay(200);
      }
      await restart;
      await burst;
      // Up again: a request is taken (tried every half second).
      await waitFor(
        "the API to take a job again",
        async () => ((await send("after")) === 202 ? true : undefined),
        30_000,
        500,
      );

      // Every answer was 202, or 503 unavailable with a time to come back: never another 5xx, never none.
      for (const refusal of refused) {
        expect.soft(refusal, JSON.stringify(refused)).toMatchObject({
          status: 503,
          error: "unavailable",
          retryAfter: expect.stringMatching(/^[1-9]\d*$/),
        });
      }
      // The outage was seen: requests sent while it was down were refused at once, not left waiting.
      expect(duringOutage, JSON.stringify(duringOutage)).toContain(503);

      for (const id of accepted) {
        const job = await client.waitForJob(id, 120_000);
        expect(job.status, `${id}: ${JSON.stringify(job)}\n${worker.output().slice(-20_000)}`).toBe("done");
      }
      // One charge per accepted job, none reserved any longer.
      expect((await client.get("/v1/account")).body).toMatchObject({
        creditsUsed: accepted.length,
        creditsReserved: 0,
      });
      const charges = await kyselyOf(cluster.runtime.database)
        .selectFrom("credit_ledger")
        .select("job_id")
        .where("kind", "=", "charge")
        .execute();
      expect(charges.map((charge) => charge.job_id).sort()).toEqual([...accepted].sort());
    } finally {
      await cluster?.close();
      await postgres.stop();
    }
  }, 240_000);
});

// Found by the chaos run (npm run test:chaos, seed 1). One cluster for both: an API node whose S3 endpoint
// refuses connections, and the settings a worker is started with.
describe("a store or a start that fails", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    const closed = await freePort();
    cluster = await startCluster({ apis: [{ OCTAVO_S3_ENDPOINT_URL: `http://127.0.0.1:${closed}` }] });
  }, 90_000);
  afterAll(() => cluster?.close());

  // With S3 stopped, every upload was answered 500 internal_error, which clients and the SDK do not retry.
  // It is 503 with Retry-After, as for the database or Redis, and the refused request leaves no job behind.
  it("S3 unreachable: an upload is refused 503 unavailable with Retry-After, and makes no job", async () => {
    const client = new Client(cluster.apiUrls[0] ?? "", (await cluster.createAccount("business")).apiKey);
    const answer = await client.postFiles("/v1/rotate", [{ path: small }], { angle: 90 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body).toMatchObject({ error: "unavailable" });
    expect(answer.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    const jobs = await kyselyOf(cluster.runtime.database).selectFrom("jobs").select("id").execute();
    expect(jobs).toEqual([]);
  });

  // A worker container restarted while Redis restarted failed its start after opening its consumers,
  // closed its database, and lived on half started, taking jobs it could not run, unhealthy but never
  // restarted. A start that fails now ends the process, so its supervisor starts it again. Its health port
  // taken is the same failure, made on purpose: the consumers are running when the port is opened.
  it("a worker whose start fails exits non-zero at once instead of living on half started", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    const worker = spawnOctavo(["worker", "--queues", "rotate"], {
      ...cluster.env,
      OCTAVO_HEALTH_PORT: String(port),
    });
    try {
      const code = await waitFor("the worker to exit", () => worker.exitCode ?? undefined, 30_000);
      expect(code, worker.output()).toBe(1);
      expect(worker.output()).toMatch(/EADDRINUSE/);
    } finally {
      worker.kill("SIGKILL");
      taken.close();
    }
  });
});
