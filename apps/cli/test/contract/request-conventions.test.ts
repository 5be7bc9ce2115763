import { readFile } from "node:fs/promises";
import { kyselyOf } from "@octavo/db/repositories";
import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { type Stack, startStack } from "../support/stack.js";

const pdf = corpusPath("general/samplefiles_pdflatex-outline.pdf");
const other = corpusPath("general/cabinet_text_only_pdfa1b.pdf");

async function post(stack: Stack, apiKey: string, key: string | undefined, file: string, options: unknown) {
  const form = new FormData();
  form.append("file", new Blob([await readFile(file)]), "in.pdf");
  form.append("options", JSON.stringify(options));
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (key !== undefined) headers["idempotency-key"] = key;
  const response = await fetch(`${stack.baseUrl}/v1/rotate`, { method: "POST", headers, body: form });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe("request conventions: Idempotency-Key and X-Request-Id", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ database: "postgres", redis: "shared" });
  });
  afterAll(async () => stack?.close());

  it("returns the first answer for a retried request and creates no second job", async () => {
    const { apiKey, accountId } = await stack.createAccount("business");
    const first = await post(stack, apiKey, "order-42", pdf, { angle: 90, pages: "1" });
    expect(first.status).toBe(202);
    // Same request, keys of the options in another order: the same request.
    const retry = await post(stack, apiKey, "order-42", pdf, { pages: "1", angle: 90 });
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const jobs = await kyselyOf(stack.runtime.database)
      .selectFrom("jobs")
      .select("id")
      .where("account_id", "=", accountId)
      .execute();
    expect(jobs).toHaveLength(1);

    const otherOptions = await post(stack, apiKey, "order-42", pdf, { angle: 180 });
    expect(otherOptions.status).toBe(409);
    expect(otherOptions.body.error).toBe("idempotency_conflict");
    const otherFile = await post(stack, apiKey, "order-42", other, { angle: 90, pages: "1" });
    expect(otherFile.status).toBe(409);
    await new Client(stack.baseUrl, apiKey).waitForJob(first.body.id as string);
  });

  it("keeps nothing for a refused request, so the key can be retried with a corrected one", async () => {
    const { apiKey } = await stack.createAccount("business");
    const refused = await post(stack, apiKey, "fix-me", pdf, { angle: 45 });
    expect(refused.status).toBe(400);
    const corrected = await post(stack, apiKey, "fix-me", pdf, { angle: 90 });
    expect(corrected.status).toBe(202);
    await new Client(stack.baseUrl, apiKey).waitForJob(corrected.body.id as string);
  });

  it("lets only one of several simultaneous requests with the same key create a job", async () => {
    const { apiKey, accountId } = await stack.createAccount("business");
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(stack, apiKey, "burst", pdf, { angle: 270 })),
    );
    const created = answers.filter((answer) => answer.status === 202);
    for (const answer of answers) expect([202, 409]).toContain(answer.status);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    const jobs = await kyselyOf(stack.runtime.database)
      .selectFrom("jobs")
      .select("id")
      .where("account_id", "=", accountId)
      .execute();
    expect(jobs).toHaveLength(1);
  });

  it("echoes the client's X-Request-Id, or sets one, on every answer and in error bodies", async () => {
    const { apiKey } = await stack.createAccount("business");
    const echoed = await fetch(`${stack.baseUrl}/v1/account`, {
      headers: { authorization: `Bearer ${apiKey}`, "x-request-id": "client-trace-7" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("client-trace-7");
    const generated = await fetch(`${stack.baseUrl}/v1/nothing`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const id = generated.headers.get("x-request-id");
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(((await generated.json()) as { requestId: string }).requestId).toBe(id);
  });
});
