import { fileURLToPath } from "node:url";
import { corpusPath, type DatabaseKind } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = fileURLToPath(new URL("../../../../examples/sample-a.pdf", import.meta.url));
const encrypted = corpusPath("encrypted/qpdf_enc-R3_V2_U-view_O-master.pdf");

interface Page {
  data: JobBody[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A job as a list shows it without include=outputs: the job itself, its outputs left out. */
const withoutOutputs = ({ outputs: _, ...job }: JobBody) => job;
/** Download links are signed at each read; the rest of an output must match. */
const withoutLinks = (job: JobBody) => ({
  ...job,
  outputs: job.outputs?.map(({ url: _url, urlExpiresAt: _expires, ...output }) => output),
});

describe.each<DatabaseKind>(["sqlite", "postgres"])("GET /v1/jobs on %s", (database) => {
  let stack: Stack;
  let client: Client;
  let other: Client;
  /** The account's jobs, newest first, as GET /v1/jobs/{id} shows them once they ended. */
  let jobs: JobBody[];

  const list = async (query = "", as = client) => {
    const answer = await as.get(`/v1/jobs${query}`);
    return { status: answer.status, page: answer.body as unknown as Page, body: answer.body };
  };
  const submit = async (path: string, options: unknown, file = pdf) => {
    const created = await client.postFiles(path, [{ path: file }], options);
    expect(created.status).toBe(202);
    return String(created.body.id);
  };

  beforeAll(async () => {
    stack = await startStack({ database, redis: database === "sqlite" ? "supervised" : "shared" });
    client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    other = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    await other.postFiles("/v1/rotate", [{ path: pdf }], { angle: 90 });
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) ids.push(await submit("/v1/rotate", { angle: 90 }));
    ids.push(await submit("/v1/split", {}));
    ids.push(await submit("/v1/unlock", { password: "not-it" }, encrypted)); // ends failed: wrong_password
    for (const id of ids) await client.waitForJob(id);
    jobs = [];
    for (const id of ids.reverse())
      jobs.push((await client.get(`/v1/jobs/${id}`)).body as unknown as JobBody);
  }, 240_000);
  afterAll(async () => stack?.close());

  it("lists the caller's jobs newest first, each the Job of GET /v1/jobs/{id}, outputs only when asked", async () => {
    const { status, page } = await list();
    expect(status).toBe(200);
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
    expect(page.data).toEqual(jobs.map(withoutOutputs));
    const included = await list("?include=outputs");
    expect(included.page.data.map(withoutLinks)).toEqual(jobs.map(withoutLinks));
    for (const job of included.page.data.filter((item) => item.status === "done"))
      for (const output of job.outputs ?? []) expect(output.url).toMatch(/^http/);
  });

  it("never shows another account's jobs", async () => {
    const theirs = await list("", other);
    expect(theirs.page.data).toHaveLength(1);
    const mine = new Set(jobs.map((job) => job.id));
    expect(theirs.page.data.some((job) => mine.has(job.id))).toBe(false);
  });

  it("filters by status, operation and creation time, combined", async () => {
    expect((await list("?operation=split")).page.data.map((job) => job.id)).toEqual(
      jobs.filter((job) => job.operation === "split").map((job) => job.id),
    );
    const failed = jobs.filter((job) => job.status === "failed");
    expect(failed).toHaveLength(1);
    expect((await list("?status=failed")).page.data.map((job) => job.id)).toEqual(
      failed.map((job) => job.id),
    );
    expect((await list("?status=failed&operation=rotate")).page.data).toEqual([]);
    const third = jobs[2]?.createdAt ?? "";
    const after = await list(`?createdAfter=${encodeURIComponent(third)}`);
    expect(after.page.data.map((job) => job.id)).toEqual(
      jobs.filter((job) => job.createdAt >= third).map((job) => job.id),
    );
    // The same instant written with an offset selects the same jobs.
    const shifted = new Date(Date.parse(third)).toISOString().replace("Z", "+00:00");
    const before = await list(`?createdBefore=${encodeURIComponent(shifted)}&operation=rotate`);
    expect(before.page.data.map((job) => job.id)).toEqual(
      jobs.filter((job) => job.createdAt < third && job.operation === "rotate").map((job) => job.id),
    );
  });

  it("pages with a cursor that stays stable while new jobs arrive", async () => {
    const first = await list("?limit=3");
    expect(first.page.data.map((job) => job.id)).toEqual(jobs.slice(0, 3).map((job) => job.id));
    expect(first.page.hasMore).toBe(true);
    const newer = await submit("/v1/rotate", { angle: 180 });
    const seen = [...first.page.data];
    for (let cursor = first.page.nextCursor; cursor !== null; ) {
      const next = await list(`?limit=3&cursor=${encodeURIComponent(cursor)}`);
      expect(next.status).toBe(200);
      seen.push(...next.page.data);
      cursor = next.page.nextCursor;
      expect(next.page.hasMore).toBe(cursor !== null);
    }
    expect(seen.map((job) => job.id)).toEqual(jobs.map((job) => job.id));
    expect((await list("?limit=1")).page.data[0]?.id).toBe(newer);
    await client.waitForJob(newer);
  });

  it("refuses a bad parameter with 400 invalid_options naming it", async () => {
    const cases: [query: string, parameter: string][] = [
      ["?status=finished", "status"],
      ["?operation=shred", "operation"],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=ten", "limit"],
      ["?createdAfter=yesterday", "createdAfter"],
      ["?createdBefore=2026-11-01", "createdBefore"],
      ["?cursor=bm90LWEtY3Vyc29y", "cursor"],
      ["?include=inputs", "include"],
      ["?sort=asc", "sort"],
      ["?status=done&status=failed", "status"],
    ];
    for (const [query, parameter] of cases) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.error, query).toBe("invalid_options");
      expect(String(body.detail), query).toMatch(new RegExp(`^${parameter}: `));
    }
  });
});
