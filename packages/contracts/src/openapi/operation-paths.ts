import { serviceLimits } from "../limits.js";
import type { OperationId } from "../operation-ids.js";
import { type OperationSpec, operations } from "../operations.js";
import { responseRef } from "./error-responses.js";

/** The components.schemas name of an operation's options: operations without options share one. */
export function optionsComponentName(spec: OperationSpec): string {
  if (Object.keys(spec.options.properties).length === 0) return "NoOptions";
  return `${pascalCase(spec.id)}Options`;
}

function pascalCase(id: OperationId): string {
  return id
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

function camelCase(id: OperationId): string {
  const pascal = pascalCase(id);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

function describeFiles(spec: OperationSpec): string {
  const { min, max, extensions } = spec.files;
  const count = min === max ? `${min}` : min === 0 ? `at most ${max}` : `${min} to ${max}`;
  const noun = max === 1 ? "file" : "files";
  return `${count} ${noun} (${extensions.join(", ")}), uploaded or given by URL`;
}

function describeOperation(spec: OperationSpec): string {
  const credits = `${spec.credits} credit${spec.credits === 1 ? "" : "s"}`;
  return [
    spec.description,
    "",
    `Files: ${describeFiles(spec)}. Credits: ${credits}, charged only if the job succeeds.`,
    "",
    "Answers 202 at once; poll statusUrl (or pass webhook_url on a paid plan) until the job is done or failed.",
  ].join("\n");
}

const uri = { type: "string", format: "uri" };

function requestBody(spec: OperationSpec): Record<string, unknown> {
  const optionsRef = { $ref: `#/components/schemas/${optionsComponentName(spec)}` };
  const webhookUrl = { ...uri, description: "Called when the job finishes. Paid plans only." };
  const multipart = {
    type: "object",
    properties: {
      file: {
        type: "array",
        items: { type: "string", format: "binary", contentMediaType: "application/octet-stream" },
        description: "Input files, repeatable, processed in the order sent.",
      },
      url: { type: "array", items: uri, description: "Public URL of an input file, repeatable." },
      options: {
        type: "string",
        contentMediaType: "application/json",
        contentSchema: optionsRef,
        description: "A JSON object holding the options of the operation.",
      },
      webhook_url: webhookUrl,
    },
  };
  const json = {
    type: "object",
    properties: {
      url: { ...uri, description: "Public URL of one input file." },
      urls: {
        type: "array",
        items: uri,
        maxItems: serviceLimits.maxUrls,
        description: "Public URLs of input files, in processing order.",
      },
      options: optionsRef,
      webhook_url: webhookUrl,
    },
  };
  return {
    required: true,
    content: { "multipart/form-data": { schema: multipart }, "application/json": { schema: json } },
  };
}

function operationPath(spec: OperationSpec): Record<string, unknown> {
  return {
    post: {
      operationId: camelCase(spec.id),
      tags: [spec.path.startsWith("/v1/convert/") ? "Conversions" : "PDF tools"],
      summary: spec.title,
      description: describeOperation(spec),
      parameters: [
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          schema: { type: "string", minLength: 1, maxLength: 255 },
          description:
            "Makes a retry safe: the same key with the same request within 24 hours returns the first answer and creates no second job; the same key with a different request answers 409 idempotency_conflict.",
        },
      ],
      requestBody: requestBody(spec),
      responses: {
        "202": {
          description: "Accepted: the job is queued.",
          headers: {
            "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
            RateLimit: { $ref: "#/components/headers/RateLimit" },
            "X-Request-Id": { $ref: "#/components/headers/RequestId" },
          },
          content: { "application/json": { schema: { $ref: "#/components/schemas/JobCreated" } } },
        },
        "400": responseRef("BadRequest"),
        "401": responseRef("Unauthorized"),
        "402": responseRef("QuotaExceeded"),
        "403": responseRef("NotInPlan"),
        "409": responseRef("Conflict"),
        "413": responseRef("TooLarge"),
        "429": responseRef("RateLimited"),
        "503": responseRef("Unavailable"),
      },
    },
  };
}

/** The 16 POST endpoints, one per operation. */
export function operationPaths(): Record<string, unknown> {
  return Object.fromEntries(operations.map((spec) => [spec.path, operationPath(spec)]));
}
