import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../support/client.js";
import { OpenApiDocument } from "../support/openapi-document.js";
import { type Stack, startStack } from "../support/stack.js";

/*
 * Where the OpenAPI document and the server once disagreed (issue 32, found with Prism and Portman): each
 * case asks the document, with ajv, what it allows, and the server, through real HTTP, what it does. The
 * two answers must agree. No job runs, so no workers.
 */
let stack: Stack;
let apiKey: string;
let document: Record<string, unknown>;
let openApi: OpenApiDocument;
const client = () => new Client(stack.baseUrl, apiKey);

beforeAll(async () => {
  stack = await startStack({ database: "sqlite", redis: "supervised", workers: false });
  apiKey = (await stack.createAccount("business")).apiKey;
  const served = await client().get("/v1/openapi.json");
  expect(served.status).toBe(200);
  document = served.body;
  openApi = new OpenApiDocument(document);
});
afterAll(async () => stack?.close());

/** The document's node at `keys`; a missing one fails the test with the path that is missing. */
function at(...keys: string[]): unknown {
  let node: unknown = document;
  for (const key of keys) {
    if (typeof node !== "object" || node === null || !(key in node)) {
      throw new Error(`the document has no ${keys.join(" > ")} (at ${key})`);
    }
    node = Reflect.get(node, key);
  }
  return node;
}

/** What the document says of a JSON body of POST `path`: valid or not. */
function documentAllows(path: string, body: unknown): boolean {
  return openApi.allows(
    ["paths", path, "post", "requestBody", "content", "application/json", "schema"],
    body,
  );
}

describe("Form B (JSON) bodies", () => {
  it.each([
    {
      what: "an unknown top-level field",
      body: { url: "https://example.com/a.pdf", colour: "red" },
      code: "invalid_request",
    },
    // No file at all: the spec's invalid_input, "wrong number or type of files".
    { what: "neither url nor urls", body: { options: { angle: 90 } }, code: "invalid_input" },
    { what: "an empty object", body: {}, code: "invalid_input" },
  ])("$what: the document refuses it, and so does the server ($code)", async ({ body, code }) => {
    expect(documentAllows("/v1/rotate", body)).toBe(false);
    const answer = await client().postJson("/v1/rotate", body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(code);
  });

  it("the document allows url, urls, or both, with options and webhook_url", () => {
    const url = "https://example.com/a.pdf";
    expect(documentAllows("/v1/rotate", { url, options: { angle: 90 } })).toBe(true);
    expect(documentAllows("/v1/merge", { urls: [url, url] })).toBe(true);
    expect(documentAllows("/v1/merge", { url, urls: [url], webhook_url: url })).toBe(true);
    // A pipeline's body needs its steps as well.
    expect(documentAllows("/v1/pipeline", { url })).toBe(false);
    expect(documentAllows("/v1/pipeline", { url, steps: [{ operation: "compress" }] })).toBe(true);
  });
});

describe("URL fields", () => {
  it("a string that is no URL at all is invalid_input, for url and for webhook_url", async () => {
    const asUrl = await client().postJson("/v1/rotate", { url: "not a url" });
    expect(asUrl.status).toBe(400);
    expect(asUrl.body).toMatchObject({ error: "invalid_input", message: "url is not a URL." });
    const asWebhook = await client().postJson("/v1/rotate", {
      url: "https://example.com/a.pdf",
      webhook_url: "::nope::",
    });
    expect(asWebhook.status).toBe(400);
    expect(asWebhook.body).toMatchObject({ error: "invalid_input", message: "webhook_url is not a URL." });
  });

  it("a webhook_url whose host has no address says it cannot be called, not that it was fetched", async () => {
    // .invalid never resolves (RFC 2606). The webhook is checked at once; nothing is sent until the job ends.
    const answer = await client().postJson("/v1/rotate", {
      url: "https://example.com/a.pdf",
      webhook_url: "https://octavo-test.invalid/hook",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("unreachable_url");
    expect(answer.body.message).toMatch(/^webhook_url cannot be called: /);
    expect(answer.body.message).not.toMatch(/fetched/);
    const described = String(
      at(
        "paths",
        "/v1/rotate",
        "post",
        "requestBody",
        "content",
        "multipart/form-data",
        "schema",
        "properties",
        "webhook_url",
        "description",
      ),
    );
    for (const code of ["invalid_input", "blocked_url", "unreachable_url", "webhooks_not_in_plan"]) {
      expect(described, code).toContain(code);
    }
  });
});

describe("job ids", () => {
  it("an id that is not a UUID answers 404 not_found, as the spec says, and the document says so", async () => {
    const parameters = at("paths", "/v1/jobs/{job_id}", "get", "parameters");
    expect(parameters).toContainEqual(
      expect.objectContaining({
        name: "job_id",
        schema: expect.not.objectContaining({ format: expect.anything() }),
        description: expect.stringMatching(/404 not_found/),
      }),
    );
    for (const id of ["not-a-uuid", "123"]) {
      const answer = await client().get(`/v1/jobs/${id}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body.error).toBe("not_found");
    }
  });
});

describe("405 and X-Request-Id", () => {
  it("a method a path does not take, OPTIONS included, answers 405 with Allow and no RateLimit, as documented", async () => {
    for (const method of ["PUT", "OPTIONS"]) {
      const response = await fetch(`${stack.baseUrl}/v1/rotate`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(response.headers.get("ratelimit")).toBeNull();
      expect(await response.json()).toMatchObject({ error: "method_not_allowed" });
    }
    const description = String(at("info", "description"));
    expect(description).toMatch(/OPTIONS included[^.]*405 method_not_allowed[^.]*without RateLimit headers/);
  });

  it("echoes a client X-Request-Id of up to 128 characters and replaces a longer one, as documented", async () => {
    const ask = (id: string) =>
      fetch(`${stack.baseUrl}/v1/account`, {
        headers: { authorization: `Bearer ${apiKey}`, "x-request-id": id },
      });
    const fits = "r".repeat(128);
    expect((await ask(fits)).headers.get("x-request-id")).toBe(fits);
    const replaced = (await ask("r".repeat(129))).headers.get("x-request-id");
    expect(replaced).toMatch(/^req_[0-9a-f]{32}$/);
    const header = JSON.stringify(at("components", "headers", "RequestId"));
    expect(header).toMatch(/1 to 128 printable ASCII characters/);
  });
});

describe("page ranges", () => {
  it('a backwards range ("5-2"): the document says it is refused, and the server refuses it', async () => {
    for (const [schema, field] of [
      ["RotateOptions", "pages"],
      ["SplitOptions", "ranges"],
      ["WatermarkOptions", "pages"],
      ["PageNumbersOptions", "pages"],
      ["PdfToImageOptions", "pages"],
    ] as const) {
      expect(
        at("components", "schemas", schema, "properties", field, "description"),
        `${schema}.${field}`,
      ).toMatch(/"5-2" is refused/);
    }
    const answer = await client().postFiles(
      "/v1/rotate",
      [{ path: corpusPath("general/samplefiles_pdflatex-outline.pdf") }],
      { angle: 90, pages: "5-2" },
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: "invalid_options",
      detail: expect.stringMatching(/goes backwards/),
    });
  });
});

describe("a replayed request (Idempotency-Key)", () => {
  it("answers with headers the document declares for 202, Idempotent-Replayed among them", async () => {
    expect(at("paths", "/v1/rotate", "post", "responses", "202", "headers")).toHaveProperty([
      "Idempotent-Replayed",
    ]);

    const form = () => {
      const data = new FormData();
      data.append("file", new Blob([Buffer.from("%PDF-1.4 not really")]), "a.pdf");
      data.append("options", JSON.stringify({ angle: 90 }));
      return data;
    };
    const post = () =>
      fetch(`${stack.baseUrl}/v1/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "idempotency-key": "replay-me" },
        body: form(),
      });
    expect((await post()).status).toBe(202);
    const replay = await post();
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });
});
