import { apiKeyPrefixes, testModeLimits, webhookSignatureHeader } from "../limits.js";
import { operations } from "../operations.js";
import { Account, ErrorBody, Job, JobCreated, JobList, JobStep, Output } from "../resources.js";
import { type JsonSchema, toJsonSchema } from "../schema-helpers.js";
import { declareAnswerHeaders, sharedResponsesWithAnswerHeaders } from "./answer-headers.js";
import { documentDescription } from "./description.js";
import { errorResponses, retryAfterHeader } from "./error-responses.js";
import { operationPaths, optionsComponentName } from "./operation-paths.js";
import { resourcePaths } from "./resource-paths.js";

/**
 * TypeBox embeds a schema where another uses it (Output in Job, Job in JobList): each embedded copy of
 * a named schema becomes a $ref to it, so generators make one type of it and linters see it used.
 */
function referToComponents(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const names = new Map(Object.entries(schemas).map(([name, schema]) => [JSON.stringify(schema), name]));
  const refer = (node: unknown, isRoot: boolean): unknown => {
    if (typeof node !== "object" || node === null) return node;
    const name = isRoot ? undefined : names.get(JSON.stringify(node));
    if (name) return { $ref: `#/components/schemas/${name}` };
    if (Array.isArray(node)) return node.map((item) => refer(item, false));
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, refer(value, false)]));
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, refer(schema, true) as JsonSchema]),
  );
}

/** Every schema the document names, converted from the TypeBox schemas the service itself uses. */
function componentSchemas(): Record<string, JsonSchema> {
  const options = operations.map((spec) => [optionsComponentName(spec), toJsonSchema(spec.options)] as const);
  const outputDocuments = operations.flatMap((spec) =>
    spec.output.document === undefined
      ? []
      : [[spec.output.document.name, toJsonSchema(spec.output.document.schema)] as const],
  );
  return referToComponents({
    ErrorBody: toJsonSchema(ErrorBody),
    JobCreated: toJsonSchema(JobCreated),
    Job: toJsonSchema(Job),
    JobList: toJsonSchema(JobList),
    JobStep: toJsonSchema(JobStep),
    Output: toJsonSchema(Output),
    Account: toJsonSchema(Account),
    ...Object.fromEntries(outputDocuments),
    ...Object.fromEntries(options),
  });
}

const jobFinishedWebhook = {
  post: {
    operationId: "jobFinished",
    summary: "Job finished",
    description:
      "Sent to webhook_url when the job is done or failed. Verify the signature before trusting the body; " +
      "answer 2xx, or the delivery is retried.",
    security: [],
    parameters: [
      {
        name: webhookSignatureHeader,
        in: "header",
        required: true,
        description: "t=<unix_seconds>,v1=<hex HMAC-SHA256 of `<t>.<raw_body>` under the signing secret>.",
        schema: { type: "string", pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$" },
      },
    ],
    requestBody: {
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Job" } } },
    },
    responses: { "2XX": { description: "Delivered." } },
  },
};

/** The OpenAPI 3.1 description of the whole API, built fresh on each call. */
export function buildOpenApiDocument(options: { serverUrl: string }): Record<string, unknown> {
  // A deep copy, so a caller that edits its document cannot change the next one.
  return structuredClone({
    openapi: "3.1.0",
    info: {
      title: "octavo API",
      version: "1.0.0",
      description: documentDescription(),
      license: { name: "AGPL-3.0-or-later", identifier: "AGPL-3.0-or-later" },
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "PDF tools", description: "Operations on PDF files." },
      { name: "Conversions", description: "Conversions to and from PDF." },
      { name: "Pipelines", description: "Several operations chained in one job." },
      { name: "Jobs", description: "Job status and results." },
      { name: "Account", description: "Plan and credits." },
      { name: "Files", description: "Signed download links." },
      { name: "Health", description: "Probes for load balancers and orchestrators." },
    ],
    paths: declareAnswerHeaders({ ...operationPaths(), ...resourcePaths() }),
    webhooks: { jobFinished: jobFinishedWebhook },
    components: {
      schemas: componentSchemas(),
      responses: sharedResponsesWithAnswerHeaders(errorResponses),
      headers: {
        RetryAfter: retryAfterHeader,
        RateLimitPolicy: {
          description:
            'IETF RateLimit-Policy: the plan\'s requests per minute, e.g. `"per-minute";q=60;w=60`.',
          schema: { type: "string" },
        },
        RateLimit: {
          description:
            'IETF RateLimit: requests left in the window and seconds until it resets, e.g. `"per-minute";r=57;t=41`.',
          schema: { type: "string" },
        },
        RequestId: {
          description:
            "The request's id: the client's own X-Request-Id when it sent one of 1 to 128 printable ASCII characters without spaces, else a new one.",
          required: true,
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: `${apiKeyPrefixes.live}<random>`,
          description:
            "An API key from the dashboard, sent as `Authorization: Bearer svc_live_...`. A test key " +
            '(`svc_test_...`) runs the same operations free of charge: every output is stamped "octavo test ' +
            `mode" (JSON outputs start with \`"livemode": false\`), an input may have at most ${testModeLimits.pagesPerInput} ` +
            `pages, the account's test keys send at most ${testModeLimits.jobsPerMinute} jobs a minute, outputs are ` +
            "kept one hour, and a test key sees only test jobs.",
        },
      },
    },
  });
}
