import { readFile } from "node:fs/promises";
import { corpusPath } from "@octavo/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type JobBody } from "../support/client.js";
import { type Answer, OpenApiDocument, type Operation, type Parameter } from "../support/openapi-document.js";
import { outOfBounds, requiredProperties, type Schema } from "../support/schema-values.js";
import { type Stack, startStack } from "../support/stack.js";

/*
 * The standing contract test (issue 32). Every path and method of the served /v1/openapi.json gets one
 * valid request, one with each required field missing, one with each option and parameter out of
 * bounds and one with a bad key (a bad signature for download links). Every answer must be a status the
 * document lists for that operation, with the headers and the body it declares there, checked with ajv
 * against the document itself. Nothing here names an operation: a new path is walked the day it is added.
 *
 * Only rotate runs (its worker makes the outputs a download link and a finished job need); other jobs
 * stay queued, which is all their 202 needs.
 */

let stack: Stack;
let document: OpenApiDocument;
const pdfBytes = readFile(corpusPath("general/samplefiles_pdflatex-outline.pdf"));

/** The jobs whose ids fill {job_id}, and the download link that fills the files route. */
interface Fixtures {
  done: JobBody;
  /** Finished, for the DELETE that succeeds (the other is read and downloaded). */
  deletable: JobBody;
  queued: string;
  apiKey: string;
}
let fixtures: Fixtures;

beforeAll(async () => {
  stack = await startStack({ database: "sqlite", redis: "supervised", queues: "rotate" });
  const served = await fetch(`${stack.baseUrl}/v1/openapi.json`);
  expect(served.status).toBe(200);
  document = new OpenApiDocument((await served.json()) as Schema);

  const { apiKey } = await stack.createAccount("business");
  const client = new Client(stack.baseUrl, apiKey);
  const rotate = async () => {
    const created = await client.postFiles("/v1/rotate", [
      { path: corpusPath("general/samplefiles_pdflatex-outline.pdf") },
    ]);
    expect(created.status).toBe(202);
    const job = await client.waitForJob(String(created.body.id));
    expect(job.status).toBe("done");
    return job;
  };
  const pdf = { path: corpusPath("general/samplefiles_pdflatex-outline.pdf") };
  const merge = await client.postFiles("/v1/merge", [pdf, pdf]);
  expect(merge.status).toBe(202);
  fixtures = { done: await rotate(), deletable: await rotate(), queued: String(merge.body.id), apiKey };
});
afterAll(async () => stack?.close());

/** One request of the walk, in the parts the document describes. */
interface WalkRequest {
  label: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: () => Promise<FormData | string>;
}

async function send(operation: Operation, request: WalkRequest): Promise<Answer> {
  let path = operation.path;
  for (const [name, value] of Object.entries(request.pathParameters)) {
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const query = new URLSearchParams(request.query).toString();
  const body = request.body ? await request.body() : undefined;
  const headers = {
    ...request.headers,
    ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
  };
  const response = await fetch(`${stack.baseUrl}${path}${query ? `?${query}` : ""}`, {
    method: operation.method.toUpperCase(),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** A parameter's value as it travels in a URL or header, and what the server reads back from it. */
function onTheWire(parameter: Parameter, value: unknown): { text: string; read: unknown } {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const numeric = ["integer", "number"].includes(String(parameter.schema.type)) && /^-?[0-9.]+$/.test(text);
  return { text, read: numeric ? Number(text) : text };
}

interface SettingsField {
  name: string;
  schema: Schema;
  /** Whether the document takes `value` for the field. */
  allows(value: unknown): boolean;
}

/** The settings field of an operation's body (`options` or `steps`) and its schema, from form A. */
function settingsField(operation: Operation): SettingsField | undefined {
  const formKeys = [
    "paths",
    operation.path,
    operation.method,
    "requestBody",
    "content",
    "multipart/form-data",
    "schema",
  ];
  const form = document.resolve(document.resolve(operation.node.requestBody).content);
  const multipart = document.resolve(document.resolve(form["multipart/form-data"]).schema);
  for (const [name, property] of Object.entries((multipart.properties ?? {}) as Record<string, Schema>)) {
    if (!property.contentSchema) continue;
    const keys = [...formKeys, "properties", name, "contentSchema"];
    return {
      name,
      schema: document.resolve(property.contentSchema),
      allows: (value) => document.allows(keys, value),
    };
  }
  return undefined;
}

interface WalkFile {
  name: string;
  bytes: Buffer<ArrayBuffer>;
  /** A named upload field (Sign PDF's certificate); else the inputs' field, "file". */
  field?: string;
}

/**
 * Files an operation's valid request carries: as many as its rules ask, of its first extension, and one
 * in each named upload field it requires.
 */
async function inputFiles(operation: Operation): Promise<WalkFile[]> {
  const rules = (operation.node["x-octavo-files"] ?? { min: 1, extensions: [".pdf"] }) as {
    min: number;
    extensions: string[];
    named?: Record<string, { required: boolean; extensions: string[] }>;
  };
  const extension = rules.extensions[0] ?? ".pdf";
  // The API checks names and counts; engines read the contents later, so other types need no real file.
  const bytes = extension === ".pdf" ? await pdfBytes : Buffer.from("stand-in");
  const inputs = Array.from({ length: Math.max(1, rules.min) }, (_, index) => ({
    name: `in-${index}${extension}`,
    bytes,
  }));
  const named = Object.entries(rules.named ?? {})
    .filter(([, upload]) => upload.required)
    .map(([field, upload]) => ({
      name: `${field}${upload.extensions[0] ?? ""}`,
      bytes: Buffer.from("stand-in"),
      field,
    }));
  return [...inputs, ...named];
}

function form(files: WalkFile[], fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const file of files) data.append(file.field ?? "file", new Blob([file.bytes]), file.name);
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
}

/**
 * A valid value for the settings field: a one-step pipeline, the options' own example where the document
 * gives one (redact's are valid only together: at least one thing to remove), else their required properties.
 */
function validSettings(schema: Schema): unknown {
  if (schema.type === "array") return [{ operation: "compress" }];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  return requiredProperties(schema);
}

interface Case {
  request: WalkRequest;
  /** What the answer must be beyond being documented: a status class, and for options the code. */
  expectation: "success" | "refused" | "refused-option" | "documented";
  /** For refused options: the option the detail must name. */
  option?: string;
}

/** The values of the path's {parameters}: the fixture jobs, or the done job's download link. */
function pathParameterValues(operation: Operation): Record<string, string> {
  if (!operation.path.includes("{")) return {};
  if (operation.path === "/v1/files/{output_id}/{name}") {
    const url = new URL(fixtures.done.outputs?.[0]?.url ?? "");
    const [, , , outputId = "", name = ""] = url.pathname.split("/");
    return { output_id: decodeURIComponent(outputId), name: decodeURIComponent(name) };
  }
  const jobId =
    operation.method === "delete"
      ? fixtures.deletable.id
      : operation.path.endsWith("/cancel")
        ? fixtures.queued
        : fixtures.done.id;
  return { job_id: jobId };
}

function downloadQuery(): Record<string, string> {
  const url = new URL(fixtures.done.outputs?.[0]?.url ?? "");
  return Object.fromEntries(url.searchParams);
}

async function casesFor(operation: Operation, apiKey: string): Promise<Case[]> {
  const parameters = document.parameters(operation);
  const auth = document.needsKey(operation) ? { authorization: `Bearer ${apiKey}` } : {};
  const requiredQuery = operation.path.startsWith("/v1/files/") ? downloadQuery() : {};
  const base: WalkRequest = {
    label: "a valid request",
    pathParameters: pathParameterValues(operation),
    query: requiredQuery,
    headers: auth,
  };
  const settings = settingsField(operation);
  const files = settings ? await inputFiles(operation) : [];
  const withSettings = (value: unknown) => async () =>
    form(files, settings ? { [settings.name]: JSON.stringify(value) } : {});
  if (settings) base.body = withSettings(validSettings(settings.schema));

  const cases: Case[] = [{ request: base, expectation: "success" }];
  const variant = (label: string, change: Partial<WalkRequest>): WalkRequest => ({
    ...base,
    label,
    ...change,
  });

  // A job in each state (a finished one's cancel, a queued one's delete): whatever the answer, the
  // document must list it. The finished job is the one DELETE may empty; the download link's stays whole.
  // An unknown job: 404.
  if ("job_id" in base.pathParameters) {
    for (const [state, id] of [
      ["finished", fixtures.deletable.id],
      ["queued", fixtures.queued],
    ] as const) {
      cases.push({
        request: variant(`a ${state} job`, { pathParameters: { job_id: id } }),
        expectation: "documented",
      });
    }
    cases.push({
      request: variant("an unknown job", { pathParameters: { job_id: "no-such-job" } }),
      expectation: "refused",
    });
  }
  // The download link's stand-in for a key: a signature of the right form that does not match.
  if (typeof base.query.signature === "string") {
    const forged = base.query.signature.replace(/.$/, (last) => (last === "0" ? "1" : "0"));
    cases.push({
      request: variant("a forged signature", { query: { ...base.query, signature: forged } }),
      expectation: "refused",
    });
  }

  // Required fields missing: the key, each required parameter, the inputs, each required option.
  if (document.needsKey(operation)) {
    cases.push({ request: variant("no Authorization header", { headers: {} }), expectation: "refused" });
    cases.push({
      request: variant("a bad key", { headers: { authorization: "Bearer svc_live_not-a-key" } }),
      expectation: "refused",
    });
  }
  for (const parameter of parameters.filter((p) => p.required && p.in !== "path")) {
    const where = parameter.in === "query" ? "query" : "headers";
    const { [parameter.name]: _dropped, ...rest } = base[where];
    cases.push({ request: variant(`without ${parameter.name}`, { [where]: rest }), expectation: "refused" });
  }
  if (settings) {
    cases.push({
      request: variant("no input file", {
        body: async () => form([], { [settings.name]: JSON.stringify(validSettings(settings.schema)) }),
      }),
      expectation: "refused",
    });
    cases.push({
      request: variant("form B without url or urls", { body: async () => JSON.stringify({}) }),
      expectation: "refused",
    });
    for (const name of (settings.schema.required ?? []) as string[]) {
      const { [name]: _dropped, ...rest } = requiredProperties(settings.schema);
      cases.push({
        request: variant(`options without ${name}`, { body: withSettings(rest) }),
        expectation: "refused-option",
        option: name,
      });
    }
  }

  // Out of bounds: every parameter, and every option (or the steps) of the body.
  for (const parameter of parameters) {
    for (const { value, breaks } of outOfBounds(parameter.schema)) {
      const wire = onTheWire(parameter, value);
      // Some breaches cannot travel: the text "true" is a string again. The document accepts those.
      if (wire.text === "" || document.fits(parameter.schema, wire.read)) continue;
      const label = `${parameter.name}=${wire.text.slice(0, 40)} (${breaks})`;
      const where =
        parameter.in === "path" ? "pathParameters" : parameter.in === "query" ? "query" : "headers";
      cases.push({
        request: variant(label, { [where]: { ...base[where], [parameter.name]: wire.text } }),
        expectation: "refused",
      });
    }
  }
  if (settings?.schema.type === "array") {
    for (const { value, breaks } of outOfBounds(settings.schema)) {
      expect(settings.allows(value), `steps ${breaks}`).toBe(false);
      cases.push({
        request: variant(`steps ${breaks}`, { body: withSettings(value) }),
        expectation: "refused-option",
        option: "steps",
      });
    }
  } else if (settings) {
    const properties = (settings.schema.properties ?? {}) as Record<string, Schema>;
    for (const [name, schema] of Object.entries(properties)) {
      for (const { value, breaks } of outOfBounds(schema)) {
        const options = { ...requiredProperties(settings.schema), [name]: value };
        // The value is past a bound by the document's own reading, or the walk would test nothing.
        expect(settings.allows(options), `${name} ${breaks}: ${JSON.stringify(value)}`).toBe(false);
        cases.push({
          request: variant(`${name} ${breaks}: ${JSON.stringify(value).slice(0, 40)}`, {
            body: withSettings(options),
          }),
          expectation: "refused-option",
          option: name,
        });
      }
    }
    const unknown = { ...requiredProperties(settings.schema), colour: "red" };
    cases.push({
      request: variant("an unknown option", { body: withSettings(unknown) }),
      expectation: "refused-option",
      option: "colour",
    });
  }
  return cases;
}

describe("the answer check", () => {
  it("finds an undocumented status, a missing or undeclared header and a body off its schema", () => {
    const account = document.operations().find((op) => op.path === "/v1/account" && op.method === "get");
    if (!account) throw new Error("the document has no GET /v1/account");
    const answer = (status: number, headers: Record<string, string>, body: unknown): Answer => ({
      status,
      headers: new Headers({ "content-type": "application/json", ...headers }),
      body: Buffer.from(JSON.stringify(body)),
    });
    const id = { "x-request-id": "req_1" };
    expect(document.problemsWith(account, answer(418, id, {}))).toEqual([
      expect.stringMatching(/^answered 418, which is not among 200, 401, 429/),
    ]);
    expect(document.problemsWith(account, answer(200, {}, {}))[0]).toMatch(
      /lacks its required header x-request-id/,
    );
    expect(document.problemsWith(account, answer(401, { ...id, "x-debug": "1" }, {}))).toContainEqual(
      "401 sends x-debug, which the document does not declare for it",
    );
    expect(document.problemsWith(account, answer(200, id, { plan: 7 }))).toEqual([
      expect.stringMatching(/^200 body does not fit the document: /),
    ]);
    const error = { error: "invalid_api_key", message: "m", detail: "" };
    expect(document.problemsWith(account, answer(401, { ...id, ratelimit: "x" }, error))).toEqual([]);
  });
});

describe("every path and method of /v1/openapi.json, answered as the document says", () => {
  it("the document has paths to walk", () => {
    expect(document.operations().length).toBeGreaterThan(20);
  });

  // it.each needs its rows before beforeAll has read the document: the walk goes by operation inside.
  it("each answers its valid, incomplete and out-of-bounds requests as the document says", async () => {
    let requests = 0;
    for (const operation of document.operations()) {
      // An account of its own per operation keeps the walk inside the plan's rate limit; a job is read
      // only by the account that created it.
      const apiKey = operation.path.includes("{job_id}")
        ? fixtures.apiKey
        : (await stack.createAccount("business")).apiKey;
      for (const { request, expectation, option } of await casesFor(operation, apiKey)) {
        const answer = await send(operation, request);
        requests += 1;
        const label = `${operation.method.toUpperCase()} ${operation.path}, ${request.label}`;
        expect.soft(document.problemsWith(operation, answer), label).toEqual([]);
        const body = answer.headers.get("content-type")?.startsWith("application/json")
          ? (JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>)
          : {};
        if (expectation === "success") {
          // An operation whose engine is not installed here answers 503 unavailable, as documented.
          const unavailable = answer.status === 503 && body.error === "unavailable";
          expect(answer.status < 300 || unavailable, `${label}: ${answer.status} ${answer.body}`).toBe(true);
        } else if (expectation !== "documented") {
          expect(answer.status, `${label}: ${answer.body}`).toBeGreaterThanOrEqual(400);
          expect(answer.status, `${label}: ${answer.body}`).toBeLessThan(500);
        }
        if (expectation === "refused-option") {
          expect(body.error, label).toBe("invalid_options");
          expect(String(body.detail), label).toMatch(new RegExp(`^${option}(\\[\\d+\\])?: `));
        }
      }
    }
    // 31 operations today, each with several requests; a walk that stopped early would send far fewer.
    expect(requests).toBeGreaterThan(300);
  });
});
