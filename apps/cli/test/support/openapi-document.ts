import type { ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Schema } from "./schema-values.js";

/*
 * The served OpenAPI document, read the way a client generator reads it: its operations, their
 * parameters and bodies, and what each may answer. `problemsWith` checks one real answer against it.
 */

export interface Operation {
  path: string;
  method: string;
  node: Schema;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema;
}

/** A response as the client saw it. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/**
 * Headers of HTTP itself, which a document does not declare. Every other header the server sends must
 * be declared on that response.
 */
const transportHeaders = new Set([
  "connection",
  "content-length",
  "content-type",
  "date",
  "keep-alive",
  "transfer-encoding",
  "vary",
  "etag",
  "cache-control",
  "accept-ranges",
  "last-modified",
  "x-content-type-options", // nosniff, a browser safeguard on downloads
]);

const asRecord = (value: unknown): Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : {};

/** A JSON pointer into the document, as ajv takes it in a $ref's fragment. */
function pointer(keys: readonly string[]): string {
  return `openapi#/${keys.map((key) => encodeURIComponent(key.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/")}`;
}

export class OpenApiDocument {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Schema) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document's other keywords are not schema keywords.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    // The schema's pattern gives a page list's syntax; the rule that a range runs forwards is in prose.
    this.ajv.addFormat("page-ranges", true);
    this.ajv.addSchema(document, "openapi");
  }

  operations(): Operation[] {
    const found: Operation[] = [];
    for (const [path, item] of Object.entries(asRecord(this.document.paths))) {
      for (const [method, node] of Object.entries(asRecord(item))) {
        if (typeof node === "object" && node !== null && "responses" in node) {
          found.push({ path, method, node: asRecord(node) });
        }
      }
    }
    return found;
  }

  /** Follows a local $ref ("#/components/…") to the node it names. */
  resolve(node: unknown): Schema {
    const record = asRecord(node);
    if (typeof record.$ref !== "string") return record;
    let target: unknown = this.document;
    for (const key of record.$ref.replace(/^#\//, "").split("/")) target = asRecord(target)[key];
    return this.resolve(target);
  }

  parameters(operation: Operation): Parameter[] {
    const listed = Array.isArray(operation.node.parameters) ? operation.node.parameters : [];
    return listed.map((parameter) => {
      const { name, in: where, required, schema } = this.resolve(parameter);
      return {
        name: String(name),
        in: where as Parameter["in"],
        required: required === true,
        schema: asRecord(schema),
      };
    });
  }

  /** Whether the operation needs the API key (the document's security, or its own override). */
  needsKey(operation: Operation): boolean {
    const security = operation.node.security ?? this.document.security;
    return Array.isArray(security) && security.length > 0;
  }

  /** Whether `value` fits the schema at `keys` in the document (its $refs resolved by ajv). */
  allows(keys: readonly string[], value: unknown): boolean {
    return this.ajv.validate({ $ref: pointer(keys) }, value);
  }

  /** Whether `value` fits `schema`, a node taken from the document. */
  fits(schema: Schema, value: unknown): boolean {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate(value) === true;
  }

  /** Everything about `answer` that the document does not say the operation may answer. */
  problemsWith(operation: Operation, answer: Answer): string[] {
    const responses = asRecord(operation.node.responses);
    const status = String(answer.status);
    if (!(status in responses)) {
      return [`answered ${status}, which is not among ${Object.keys(responses).join(", ")}: ${answer.body}`];
    }
    const response = this.resolve(responses[status]);
    const problems: string[] = [];
    const declared = new Map(
      Object.entries(asRecord(response.headers)).map(([name, header]) => [
        name.toLowerCase(),
        this.resolve(header),
      ]),
    );
    for (const [name, header] of declared) {
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required === true) problems.push(`${status} lacks its required header ${name}`);
        continue;
      }
      const schema = asRecord(header.schema);
      const typed = ["integer", "number"].includes(String(schema.type)) ? Number(value) : value;
      if (!this.fits(schema, typed))
        problems.push(`${status} header ${name}: ${value} does not fit its schema`);
    }
    for (const name of answer.headers.keys()) {
      if (!transportHeaders.has(name) && !declared.has(name)) {
        problems.push(`${status} sends ${name}, which the document does not declare for it`);
      }
    }
    problems.push(...this.bodyProblems(operation, status, response, answer));
    return problems;
  }

  private bodyProblems(operation: Operation, status: string, response: Schema, answer: Answer): string[] {
    const content = asRecord(response.content);
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      return answer.body.length === 0 ? [] : [`${status} has a body, but the document declares none`];
    }
    const sent = (answer.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    const mediaType =
      mediaTypes.find((declared) => declared === sent) ?? (mediaTypes.includes("*/*") ? "*/*" : undefined);
    if (mediaType === undefined) return [`${status} is ${sent || "untyped"}, not ${mediaTypes.join(" or ")}`];
    if (mediaType !== "application/json") return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString("utf8"));
    } catch {
      return [`${status} says application/json but its body is not JSON`];
    }
    // Where the schema sits: inline in the operation, or in the shared response it refers to.
    const reference = asRecord(asRecord(operation.node.responses)[status]).$ref;
    const keys =
      typeof reference === "string"
        ? [...reference.replace(/^#\//, "").split("/"), "content", mediaType, "schema"]
        : ["paths", operation.path, operation.method, "responses", status, "content", mediaType, "schema"];
    if (this.allows(keys, body)) return [];
    const errors = this.ajv.errorsText(this.ajv.errors, { dataVar: "body" });
    return [`${status} body does not fit the document: ${errors}: ${JSON.stringify(body).slice(0, 500)}`];
  }
}
