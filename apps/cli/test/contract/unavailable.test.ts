import { corpusPath, waitFor } from "@octavo/testing";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { refuseConnections } from "../support/postgres-outage.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");

describe("503 or 429 with Retry-After when the service, or an account's own backlog, cannot take more work", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  // No worker runs here, and rotate has no history yet: the estimate is its lane's typical second a job,
  // on one slot. Each bound is 2 s, so two jobs may wait and the third would be over it.
  async function boundedStack(setting: string): Promise<[Client, Client]> {
    const started = await startStack({
      database: "sqlite",
      redis: "supervised",
      workers: false,
      env: { [setting]: "2" },
    });
    stack = started;
    const client = async () => new Client(started.baseUrl, (await started.createAccount("business")).apiKey);
    return [await client(), await client()];
  }

  /** A rotate job of a URL input (never fetched when the request is refused first). */
  function postUrl(client: Client): Promise<Response> {
    return fetch(`${client.baseUrl}/v1/rotate`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/never-fetched.pdf" }),
    });
  }

  it("refuses everyone's new jobs while a queue's waiting jobs would take too long to run", async () => {
    const [first, second] = await boundedStack("OCTAVO_QUEUE_MAX_BACKLOG_SECONDS");
    expect((await first.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    expect((await second.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    const full = await postUrl(first);
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("1");
    expect(await full.json()).toMatchObject({
      error: "unavailable",
      detail: "The jobs waiting would take about 3 seconds to run; retry in 1 second.",
    });
    // Another queue is not affected.
    expect((await first.postFiles("/v1/split", [{ path: pdf }])).status).toBe(202);
  });

  it("answers 429 to an account whose own waiting jobs would take too long to run, and not to others", async () => {
    const [busy, other] = await boundedStack("OCTAVO_ACCOUNT_MAX_BACKLOG_SECONDS");
    expect((await busy.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    expect((await busy.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    const refused = await postUrl(busy);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({
      error: "rate_limited",
      message: "Your Rotate PDF jobs already waiting would take about 3 seconds to run.",
    });
    // Another account, and another operation of the same account, go on.
    expect((await other.postFiles("/v1/rotate", [{ path: pdf }])).status).toBe(202);
    expect((await busy.postFiles("/v1/split", [{ path: pdf }])).status).toBe(202);
  });

  it("answers 503, not 500, while the database refuses connections", async () => {
    stack = await startStack({ database: "postgres", redis: "supervised" });
    const client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
    expect((await client.get("/v1/account")).status).toBe(200);
    const restore = await refuseConnections(stack.config.databaseUrl);
    try {
      const answer = await client.get("/v1/account");
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: "unavailable" });
      expect(answer.headers.get("retry-after")).toBe("5");
    } finally {
      await restore();
    }
    // Back by itself once the database takes connections again, with no restart. Until the pool's next
    // connection is in, an answer is the same 503 with its Retry-After, never another error. (How soon is
    // the machine's load, not the service's behaviour: the deadline only catches a service that stays down.)
    const meanwhile: { status: number; retryAfter: string | null }[] = [];
    await waitFor(
      "the API to answer 200 again",
      async () => {
        const answer = await client.get("/v1/account");
        if (answer.status === 200) return true;
        meanwhile.push({ status: answer.status, retryAfter: answer.headers.get("retry-after") });
        return undefined;
      },
      30_000,
      100,
    );
    for (const answer of meanwhile) expect(answer).toEqual({ status: 503, retryAfter: "5" });
  });
});
