import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import {
  Account,
  buildOpenApiDocument,
  ErrorBody,
  Job,
  JobCreated,
  laneOf,
  type OperationId,
  Output,
  operationIds,
  operations,
  optionsJsonSchema,
  plans,
  toJsonSchema,
} from "../src/index.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a path of keys, failing the test with the path when a step is missing. */
function at(root: unknown, ...keys: string[]): Json {
  let node = root;
  for (const key of keys) {
    if (!isObject(node) || !(key in node)) throw new Error(`missing ${keys.join(" > ")} (at ${key})`);
    node = node[key];
  }
  if (!isObject(node)) throw new Error(`${keys.join(" > ")} is not an object`);
  return node;
}

function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function collect(node: unknown, visit: (value: Json) => void): void {
  if (Array.isArray(node)) for (const item of node) collect(item, visit);
  if (!isObject(node)) return;
  visit(node);
  for (const value of Object.values(node)) collect(value, visit);
}

let document: Json;
/** What every endpoint that creates a job (an operation's, the pipeline's) can answer. */
const jobCreatingResponses = ["202", "400", "401", "402", "403", "409", "413", "429", "503"];

beforeAll(() => {
  document = buildOpenApiDocument({ serverUrl: "http://localhost:8080" });
});

/**
 * Form B's body schema: an anyOf of "with url" and "with urls", whose branches share their properties and
 * refuse other fields. Returns the first branch, after checking that shape.
 */
function jsonForm(content: Json): Json {
  const branches = at(content, "application/json", "schema").anyOf;
  if (!Array.isArray(branches) || !branches.every(isObject))
    throw new Error("Form B is not an anyOf of schemas");
  const [first] = branches;
  if (first === undefined) throw new Error("Form B's anyOf is empty");
  const withSteps = Array.isArray(first.required) && first.required.includes("steps");
  expect(branches.map((branch) => branch.required)).toEqual(
    withSteps
      ? [
          ["url", "steps"],
          ["urls", "steps"],
        ]
      : [["url"], ["urls"]],
  );
  for (const branch of branches) {
    expect(branch).toMatchObject({ type: "object", additionalProperties: false });
    expect(branch.properties).toEqual(first.properties);
  }
  return first;
}

/** The schema of an operation's JSON-form options, followed through its $ref. */
function documentedOptions(id: OperationId): { viaJson: unknown; viaMultipart: unknown } {
  const spec = operations.find((candidate) => candidate.id === id);
  if (spec === undefined) throw new Error(id);
  const content = at(document, "paths", spec.path, "post", "requestBody", "content");
  // Sign PDF takes multipart only (its certificate is an upload): its options are documented there alone.
  const jsonRef =
    "application/json" in content
      ? at(jsonForm(content), "properties", "options").$ref
      : at(content, "multipart/form-data", "schema", "properties", "options", "contentSchema").$ref;
  const multipartRef = at(
    content,
    "multipart/form-data",
    "schema",
    "properties",
    "options",
    "contentSchema",
  ).$ref;
  return {
    viaJson: resolvePointer(document, String(jsonRef)),
    viaMultipart: resolvePointer(document, String(multipartRef)),
  };
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("declares OpenAPI 3.1.0, interface version 1.0.0 and the server", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(at(document, "info")).toMatchObject({ title: "octavo API", version: "1.0.0" });
    expect(document.servers).toEqual([{ url: "http://localhost:8080" }]);
  });

  it("resolves every $ref", () => {
    const refs: string[] = [];
    collect(document, (node) => {
      if (typeof node.$ref === "string") refs.push(node.$ref);
    });
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) expect(resolvePointer(document, ref), ref).toBeDefined();
  });

  it("carries no TypeBox symbol keys", () => {
    collect(document, (node) => expect(Object.getOwnPropertySymbols(node)).toEqual([]));
  });

  it("documents every operation with both request forms (multipart only with a required upload) and its responses", () => {
    for (const spec of operations) {
      const post = at(document, "paths", spec.path, "post");
      const content = at(post, "requestBody", "content");
      const named = Object.entries(spec.files.named ?? {});
      const multipartOnly = named.some(([, upload]) => upload.required);
      expect(Object.keys(content).sort(), spec.path).toEqual(
        multipartOnly ? ["multipart/form-data"] : ["application/json", "multipart/form-data"],
      );
      const multipart = at(content, "multipart/form-data", "schema", "properties");
      expect(Object.keys(multipart)).toEqual([
        "file",
        "url",
        ...named.map(([field]) => field),
        "options",
        "webhook_url",
      ]);
      expect(at(multipart, "file")).toMatchObject({ type: "array", items: { type: "string" } });
      for (const [field, upload] of named) {
        expect(at(multipart, field)).toMatchObject({ type: "array", maxItems: upload.max });
        expect(String(at(multipart, field).description)).toContain(upload.extensions.join(", "));
      }
      expect(at(multipart, "options")).toMatchObject({
        type: "string",
        contentMediaType: "application/json",
      });
      expect(Object.keys(at(post, "responses"))).toEqual(jobCreatingResponses);
      expect(String(post.description)).toContain(spec.files.extensions.join(", "));
      expect(String(post.description)).toContain(`Credits: ${spec.credits} credit`);
      if (multipartOnly) continue;
      const json = at(jsonForm(content), "properties");
      expect(Object.keys(json)).toEqual(["url", "urls", "options", "webhook_url"]);
      expect(at(json, "urls")).toMatchObject({ type: "array", maxItems: 20 });
    }
  });

  it("shows the codes each error status can carry, and Retry-After on 429", () => {
    const responses = at(document, "components", "responses");
    const codes = (name: string) =>
      Object.keys(at(responses, name, "content", "application/json", "examples"));
    expect(codes("BadRequest")).toEqual(
      expect.arrayContaining(["invalid_input", "invalid_options", "blocked_url", "unreachable_url"]),
    );
    expect(codes("Unauthorized")).toEqual(["missing_api_key", "invalid_api_key"]);
    expect(codes("InvalidLink")).toEqual(["invalid_link", "link_expired"]);
    expect(codes("ResultExpired")).toEqual(["result_expired"]);
    expect(codes("JobFinished")).toEqual(["job_finished"]);
    expect(codes("JobNotFinished")).toEqual(["job_not_finished"]);
    expect(at(responses, "RateLimited", "headers", "Retry-After")).toBeDefined();
  });

  it("documents jobs, account, downloads and health probes", () => {
    const paths = at(document, "paths");
    expect(Object.keys(at(paths, "/v1/jobs/{job_id}", "get", "responses"))).toEqual([
      "200",
      "400",
      "401",
      "404",
      "429",
    ]);
    expect(Object.keys(at(paths, "/v1/account", "get", "responses"))).toEqual(["200", "401", "429"]);
    expect(Object.keys(at(paths, "/v1/jobs/{job_id}/cancel", "post", "responses"))).toEqual([
      "200",
      "401",
      "404",
      "409",
      "429",
    ]);
    expect(Object.keys(at(paths, "/v1/jobs/{job_id}", "delete", "responses"))).toEqual([
      "204",
      "401",
      "404",
      "409",
      "429",
    ]);
    const download = at(paths, "/v1/files/{output_id}/{name}", "get");
    expect(download.security).toEqual([]);
    expect(Object.keys(at(download, "responses"))).toEqual(["200", "403", "404", "410"]);
    expect(JSON.stringify(download.parameters)).toContain('"expires"');
    expect(JSON.stringify(download.parameters)).toContain('"signature"');
    expect(at(paths, "/healthz", "get").security).toEqual([]);
    expect(at(paths, "/readyz", "get").security).toEqual([]);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(at(document, "components", "securitySchemes", "bearerAuth")).toMatchObject({ scheme: "bearer" });
  });

  it("describes the webhook signature", () => {
    const description = String(at(document, "info").description);
    expect(description).toContain("SVC-Signature: t=<unix_seconds>,v1=<hex_digest>");
    expect(description).toContain("HMAC-SHA256");
    expect(description).toContain("300 seconds");
    expect(description).toContain("3 times over about 45 seconds");
    expect(at(document, "webhooks", "jobFinished", "post")).toBeDefined();
  });

  it("states the input limits a file is refused at", () => {
    const description = String(at(document, "info").description);
    expect(description).toContain(
      "when a PDF has more than 20,000 pages or 1,000,000 objects, holds an image that decodes to more than 1 GB or a stream that inflates to more than 512 MB, or when an Office file unpacks to more than 256 MB at over 100 times its size",
    );
    expect(description).toContain("ends done with a warning");
  });

  it("describes the fair queues, the running caps of every plan and the back-pressure answers", () => {
    const description = String(at(document, "info").description);
    expect(description).toContain("Jobs running at once (light / heavy)");
    for (const plan of Object.values(plans))
      expect(description).toContain(`| ${plan.maxRunningJobs.light} / ${plan.maxRunningJobs.heavy} |`);
    const light = /light operations are ([a-z, -]+), the others are heavy/.exec(description)?.[1];
    expect(light?.split(", ").sort()).toEqual(operationIds.filter((id) => laneOf(id) === "light").sort());
    expect(light?.split(", ")).toContain("merge");
    expect(light?.split(", ")).not.toContain("ocr");
    expect(description).toContain("429 rate_limited, with Retry-After, while the account's own waiting jobs");
    expect(String(at(document, "components", "responses", "RateLimited").description)).toContain(
      "own waiting jobs",
    );
  });
});

describe("one source of truth", () => {
  it.each(["rotate", "ocr", "html-to-pdf", "protect", "pdf-to-pdfa", "merge"] as const)(
    "the %s options in the document are the schema ajv validates with",
    (id) => {
      const { viaJson, viaMultipart } = documentedOptions(id);
      expect(viaJson).toEqual(optionsJsonSchema(id));
      expect(viaMultipart).toEqual(optionsJsonSchema(id));
    },
  );

  it("documents every option with its type, bounds, enum and default", () => {
    expect(documentedOptions("compress").viaJson).toMatchObject({
      additionalProperties: false,
      properties: {
        level: { type: "string", enum: ["low", "recommended", "extreme"], default: "recommended" },
        targetKB: { type: "integer", minimum: 20, maximum: 100_000 },
        grayscale: { type: "boolean", default: false },
      },
    });
    expect(documentedOptions("ocr").viaJson).toMatchObject({
      properties: {
        languages: { type: "array", minItems: 1, maxItems: 3, uniqueItems: true, default: ["eng"] },
      },
    });
    expect(documentedOptions("protect").viaJson).toMatchObject({ required: ["userPassword"] });
    for (const spec of operations) {
      const properties = at(documentedOptions(spec.id).viaJson, "properties");
      for (const [name, option] of Object.entries(properties)) {
        expect(at(option), `${spec.id}.${name}`).toMatchObject({
          type: expect.anything(),
          description: expect.any(String),
        });
      }
    }
  });

  it("validates like validateOptions when a client compiles the documented schema", () => {
    const ajv = new Ajv({ useDefaults: true, strict: false, formats: { "page-ranges": true } });
    const validate = ajv.compile(at(documentedOptions("rotate").viaJson));
    const options = {};
    expect(validate(options)).toBe(true);
    expect(options).toEqual({ angle: 90 });
    expect(validate({ angle: 45 })).toBe(false);
  });

  it("documents POST /v1/pipeline: steps in both forms, each step one operation's id and options", () => {
    const post = at(document, "paths", "/v1/pipeline", "post");
    expect(post.tags).toEqual(["Pipelines"]);
    const content = at(post, "requestBody", "content");
    // jsonForm checks that both branches require the steps.
    const steps = at(jsonForm(content), "properties", "steps");
    expect(at(content, "multipart/form-data", "schema", "properties", "steps", "contentSchema")).toEqual(
      steps,
    );
    expect(Object.keys(at(post, "responses"))).toEqual(jobCreatingResponses);
    // A client compiling the documented schema accepts the chains the API accepts, and refuses a
    // step's unknown operation or bad option as the API does (the chain rules are the API's alone).
    const ajv = new Ajv({ useDefaults: true, strict: false, formats: { "page-ranges": true, uri: true } });
    // The step schema with the document's components beside it, where its $refs point.
    const validate = ajv.compile({
      ...steps,
      components: { schemas: at(document, "components", "schemas") },
    });
    expect(validate([{ operation: "ocr", options: { languages: ["eng"] } }, { operation: "compress" }])).toBe(
      true,
    );
    expect(validate([])).toBe(false);
    expect(validate([{ operation: "sharpen" }])).toBe(false);
    expect(validate([{ operation: "rotate", options: { angle: 45 } }])).toBe(false);
    expect(validate([{ operation: "rotate", extra: 1 }])).toBe(false);
    expect(at(document, "components", "schemas", "Job", "properties", "steps")).toBeDefined();
  });

  /** A component schema with each $ref to another component replaced by that component, as TypeBox built it. */
  function inlined(schemas: Record<string, unknown>, node: unknown): unknown {
    if (typeof node !== "object" || node === null) return node;
    if (Array.isArray(node)) return node.map((item) => inlined(schemas, item));
    const reference = (node as { $ref?: unknown }).$ref;
    if (typeof reference === "string") {
      return inlined(schemas, schemas[reference.replace("#/components/schemas/", "")]);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(schemas, value)]));
  }

  it("embeds the resource schemas the API shapes its responses with", () => {
    const schemas = at(document, "components", "schemas");
    expect(schemas.ErrorBody).toEqual(toJsonSchema(ErrorBody));
    expect(schemas.JobCreated).toEqual(toJsonSchema(JobCreated));
    expect(inlined(schemas, schemas.Job)).toEqual(toJsonSchema(Job));
    expect(schemas.Output).toEqual(toJsonSchema(Output));
    expect(schemas.Account).toEqual(toJsonSchema(Account));
    expect(at(schemas, "Job", "properties", "error")).toMatchObject({ anyOf: expect.any(Array) });
  });

  it("refers to a named schema where another holds it, instead of a second copy", () => {
    const schemas = at(document, "components", "schemas");
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(at(schemas, "Job", "properties", "outputs", "items")).toEqual(ref("Output"));
    expect(at(schemas, "Job", "properties", "steps", "items")).toEqual(ref("JobStep"));
    expect(at(schemas, "JobList", "properties", "data", "items")).toEqual(ref("Job"));
  });

  it("builds a fresh document on each call", () => {
    const first = buildOpenApiDocument({ serverUrl: "https://a.example" });
    at(first, "components", "schemas").Job = "edited";
    const second = buildOpenApiDocument({ serverUrl: "https://b.example" });
    const schemas = at(second, "components", "schemas");
    expect(inlined(schemas, schemas.Job)).toEqual(toJsonSchema(Job));
  });
});
