import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { processesMatching, spawnOctavo, waitFor } from "./support/processes.js";
import { type Stack, startStack } from "./support/stack.js";

const bigFiles = [
  "general/govdocs_error_set_2_064034.pdf",
  "general/govdocs_error_set_1_316267.pdf",
  "general/samplefiles_GeoTopo-komprimiert.pdf",
].map((file) => corpusPath(file));

describe("a worker killed in the middle of a job (PostgreSQL, shared Redis)", () => {
  let stack: Stack;

  beforeAll(async () => {
    // The API runs here; workers run as separate `octavo worker` processes that the test kills.
    stack = await startStack({
      database: "postgres",
      redis: "shared",
      workers: false,
      env: { OCTAVO_JOB_LOCK_SECONDS: "2" },
    });
  });
  afterAll(async () => stack?.close());

  it("hands the job to the next worker, which finishes it, and charges it once", async () => {
    const { apiKey } = await stack.createAccount("business");
    const client = new Client(stack.baseUrl, apiKey);
    const files = Array.from({ length: 18 }, (_, index) => ({
      path: bigFiles[index % 3] ?? "",
      name: `part-${index}.pdf`,
    }));
    const created = await client.postFiles("/v1/merge", files);
    expect(created.status).toBe(202);
    const jobId = created.body.id as string;

    const first = spawnOctavo(["worker", "--queues", "merge"], stack.env);
    const statusOf = async () =>
      (
        await stack.runtime.database.db
          .selectFrom("jobs")
          .select("status")
          .where("id", "=", jobId)
          .executeTakeFirstOrThrow()
      ).status;
    await waitFor("the job to become active", async () =>
      (await statusOf()) === "active" ? true : undefined,
    );
    first.kill("SIGKILL");
    // The sandboxed engine process notices its worker is gone and ends itself and its tools.
    await waitFor(
      "the orphaned sandbox to exit",
      () => (processesMatching("sandbox/child.js").length === 0 ? true : undefined),
      10_000,
    );
    expect(await statusOf()).toBe("active");

    const second = spawnOctavo(["worker", "--queues", "merge"], stack.env);
    try {
      const job = await client.waitForJob(jobId, 90_000);
      expect(job.status, second.output()).toBe("done");
      expect(job.outputs).toHaveLength(1);
    } finally {
      second.kill("SIGTERM");
    }

    const row = await stack.runtime.database.db
      .selectFrom("jobs")
      .select(["attempts"])
      .where("id", "=", jobId)
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    const charges = await stack.runtime.database.db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("job_id", "=", jobId)
      .execute();
    expect(charges).toHaveLength(1);
    expect((await client.get("/v1/account")).body).toMatchObject({ creditsUsed: 1, creditsReserved: 0 });
  }, 180_000);
});
