import { serviceLimits } from "../limits.js";
import type { OperationId } from "../operation-ids.js";
import { type FileRule, type OperationSpec, operations } from "../operations.js";
import { MAX_PIPELINE_STEPS, PIPELINE_PATH } from "../pipelines.js";
import { bytesPerMB } from "../plans.js";
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
  const document = spec.output.document;
  return [
    spec.description,
    ...(document === undefined ? [] : ["", `The JSON output follows components.schemas.${document.name}.`]),
    "",
    `Files: ${describeFiles(spec)}. Credits: ${credits}, charged only if the job succeeds.`,
    "",
    "Answers 202 at once; poll statusUrl (or pass webhook_url on a paid plan) until the job is done or failed.",
  ].join("\n");
}

const uri = { type: "string", format: "uri" };

/** How large and how deep a form's options or steps may be (serviceLimits). */
const settingsLimits = `(at most ${serviceLimits.maxFieldBytes / bytesPerMB} MB and ${serviceLimits.maxSettingsDepth} levels deep)`;

/** The field besides the inputs: an operation's `options`, or a pipeline's `steps`. */
interface BodyField {
  name: "options" | "steps";
  schema: Record<string, unknown>;
  /** How form A carries it: a JSON text. */
  formDescription: string;
}

function operationOptionsField(spec: OperationSpec): BodyField {
  return {
    name: "options",
    schema: { $ref: `#/components/schemas/${optionsComponentName(spec)}` },
    formDescription: `A JSON object holding the options of the operation ${settingsLimits}.`,
  };
}

/** The multipart fields of an operation's named uploads (Sign PDF's certificate, Verify signatures' roots). */
function namedUploadFields(named: FileRule["named"]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(named ?? {}).map(([name, upload]) => [
      name,
      {
        type: "array",
        items: { type: "string", format: "binary", contentMediaType: "application/octet-stream" },
        maxItems: upload.max,
        description:
          `${upload.description} ${upload.required ? "Required" : "Optional"}; ` +
          `${upload.max === 1 ? "one file" : `at most ${upload.max} files`} (${upload.extensions.join(", ")}), ` +
          "uploaded in this field (multipart only, never a URL).",
      },
    ]),
  );
}

function requestBody(field: BodyField, named?: FileRule["named"]): Record<string, unknown> {
  const webhookUrl = {
    ...uri,
    description:
      "Called when the job finishes. Paid plans only (403 webhooks_not_in_plan on Free). Checked when the job is created, nothing is sent then: 400 invalid_input when it is not a URL, blocked_url when it points at a private or blocked address, unreachable_url when its host name cannot be resolved.",
  };
  const multipart = {
    type: "object",
    properties: {
      file: {
        type: "array",
        items: { type: "string", format: "binary", contentMediaType: "application/octet-stream" },
        description: "Input files, repeatable, processed in the order sent.",
      },
      url: { type: "array", items: uri, description: "Public URL of an input file, repeatable." },
      ...namedUploadFields(named),
      [field.name]: {
        type: "string",
        contentMediaType: "application/json",
        contentSchema: field.schema,
        description: field.formDescription,
      },
      webhook_url: webhookUrl,
    },
  };
  const jsonProperties = {
    url: { ...uri, description: "Public URL of one input file." },
    urls: {
      type: "array",
      items: uri,
      maxItems: serviceLimits.maxUrls,
      description: "Public URLs of input files, in processing order.",
    },
    [field.name]: field.schema,
    webhook_url: webhookUrl,
  };
  // The server refuses other fields, and a body with neither url nor urls. Each branch states the
  // whole object, so generated client types keep the fields (a bare `required` branch becomes unknown).
  const withInput = (input: "url" | "urls") => ({
    type: "object",
    title: `With ${input}`,
    properties: jsonProperties,
    required: field.name === "steps" ? [input, "steps"] : [input],
    additionalProperties: false,
  });
  const json = { anyOf: [withInput("url"), withInput("urls")] };
  // A required upload cannot come in a JSON body.
  const jsonAllowed = !Object.values(named ?? {}).some((upload) => upload.required);
  return {
    required: true,
    content: {
      "multipart/form-data": { schema: multipart },
      ...(jsonAllowed ? { "application/json": { schema: json } } : {}),
    },
  };
}

interface PostEndpoint {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  field: BodyField;
  named?: FileRule["named"];
  /** OpenAPI "x-" fields of the operation object. */
  extensions?: Record<string, unknown>;
}

function operationPath(spec: OperationSpec): Record<string, unknown> {
  return postPath({
    operationId: camelCase(spec.id),
    tag: spec.path.startsWith("/v1/convert/") ? "Conversions" : "PDF tools",
    summary: spec.title,
    description: describeOperation(spec),
    field: operationOptionsField(spec),
    ...(spec.files.named === undefined ? {} : { named: spec.files.named }),
    // The facts the prose above gives, for generators (the SDK and its CLI): the id a pipeline step
    // names, the credits, and the file rules.
    extensions: {
      "x-octavo-operation": spec.id,
      "x-octavo-credits": spec.credits,
      "x-octavo-files": { ...spec.files, extensions: [...spec.files.extensions] },
      // The JSON document the job writes, where the operation has one (PDF to Markdown's format json).
      ...(spec.output.document === undefined
        ? {}
        : { "x-octavo-output-document": { $ref: `#/components/schemas/${spec.output.document.name}` } }),
    },
  });
}

function postPath(endpoint: PostEndpoint): Record<string, unknown> {
  return {
    post: {
      operationId: endpoint.operationId,
      tags: [endpoint.tag],
      summary: endpoint.summary,
      description: endpoint.description,
      ...endpoint.extensions,
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
      requestBody: requestBody(endpoint.field, endpoint.named),
      responses: {
        "202": {
          description: "Accepted: the job is queued.",
          headers: {
            "Idempotent-Replayed": {
              description:
                "Sent, as true, when this is the stored answer to an earlier request with the same Idempotency-Key; no new job was created.",
              schema: { type: "string", enum: ["true"] },
            },
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

/** One step: an operation id and that operation's options, as one schema per operation. */
function stepSchema(): Record<string, unknown> {
  return {
    oneOf: operations.map((spec) => ({
      type: "object",
      title: spec.id,
      properties: {
        operation: { const: spec.id },
        options: { $ref: `#/components/schemas/${optionsComponentName(spec)}` },
      },
      required: ["operation"],
      additionalProperties: false,
    })),
  };
}

const pipelineDescription = [
  "Runs several operations as one job: each step's outputs are the next step's inputs, in order (a step",
  "that yields several files passes them all, and a one-file operation then runs once per file), and the",
  "job's outputs are the last step's. One job id, one status, one webhook; progress advances across the",
  "steps, and the Job carries `steps` with each step's status.",
  "",
  `steps: 1 to ${MAX_PIPELINE_STEPS} of {"operation": "<id>", "options": {...}}, the id as in the operation's`,
  'path without /v1/ and /convert/ (e.g. "ocr", "word-to-pdf"). In form A it is a form field holding the',
  "JSON array. The inputs follow the first step's file rules. Each step's options are validated against",
  "its operation's schema, and a step that cannot read the previous step's output (merge after split,",
  "word-to-pdf after a PDF step, anything but unlock after protect) is refused; both answer 400",
  "invalid_options with detail naming the step, e.g. `steps[1]: word-to-pdf takes .doc, ... files, and",
  "steps[0] (compress) yields .pdf`.",
  "",
  "Credits: the sum of the steps' credits, reserved when accepted and charged only when every step",
  "succeeds. A failing step fails the job with that step's error code, its message naming the step. The",
  "job timeout covers the whole pipeline; no intermediate result is kept after the job.",
].join("\n");

/** The 16 POST endpoints, one per operation, and POST /v1/pipeline. */
export function operationPaths(): Record<string, unknown> {
  const pipeline = postPath({
    operationId: "pipeline",
    tag: "Pipelines",
    summary: "Run a pipeline of operations",
    description: pipelineDescription,
    field: {
      name: "steps",
      schema: { type: "array", minItems: 1, maxItems: MAX_PIPELINE_STEPS, items: stepSchema() },
      formDescription: `A JSON array of the steps ${settingsLimits}.`,
    },
  });
  return {
    ...Object.fromEntries(operations.map((spec) => [spec.path, operationPath(spec)])),
    [PIPELINE_PATH]: pipeline,
  };
}
