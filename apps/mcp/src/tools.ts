import type { OperationInfo, OptionInfo } from "@octavo/client/catalogue";

/** A tool as MCP lists it: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, object>; required?: string[] };
}

/** The argument holding an operation tool's files. */
export const inputsArgument = "inputs";

/** How files reach the server: local paths under a root (stdio) and URLs, or URLs only (HTTP). */
export type FileAccess = "paths-and-urls" | "urls";

function optionSchema(option: OptionInfo): object {
  const { name: _, required: __, ...schema } = option;
  return schema;
}

/** One tool per operation of the API's catalogue: its files (`inputs`, named uploads) and its options. */
export function operationTool(operation: OperationInfo, access: FileAccess): ToolDefinition {
  const where =
    access === "paths-and-urls"
      ? "local file paths under the directories this server may read, or public http(s) URLs"
      : "public http(s) URLs (this server reads no local file)";
  const { min, max, extensions, named = {} } = operation.files;
  const properties: Record<string, object> = {
    [inputsArgument]: {
      type: "array",
      items: { type: "string" },
      minItems: min,
      maxItems: max,
      description: `The files to process, in order (${extensions.join(", ")}): ${where}.`,
    },
  };
  const required: string[] = min > 0 ? [inputsArgument] : [];
  for (const [field, upload] of Object.entries(named)) {
    properties[field] = {
      type: "array",
      items: { type: "string" },
      maxItems: upload.max,
      description: `${upload.description} Local file paths (${upload.extensions.join(", ")}); never fetched from a URL.`,
    };
    if (upload.required && upload.insteadOf === undefined) required.push(field);
  }
  for (const option of operation.options) {
    properties[option.name] = optionSchema(option);
    if (option.required) required.push(option.name);
  }
  const credits = operation.credits === 1 ? "1 credit" : `${operation.credits} credits`;
  return {
    name: operation.id,
    title: operation.title,
    description: `${operation.title}: ${operation.description} Costs ${credits} when it succeeds; the job's outputs come back as links, and text outputs (Markdown, JSON, text) inline too.`,
    inputSchema: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
  };
}

const jobId = {
  id: { type: "string", description: "The job's id, as an operation tool or list_jobs gave it." },
};

/** The tools about jobs and the account, beside the operations. */
export const jobTools: ToolDefinition[] = [
  {
    name: "get_job",
    title: "Get job",
    description: "A job's status, progress, outputs (as links) or error.",
    inputSchema: { type: "object", properties: jobId, required: ["id"] },
  },
  {
    name: "list_jobs",
    title: "List jobs",
    description: "The account's jobs, newest first, a page at a time.",
    inputSchema: {
      type: "object",
      properties: {
        status: { type: "string", enum: ["queued", "active", "done", "failed"] },
        operation: { type: "string", description: "An operation id, e.g. merge, or pipeline." },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        cursor: { type: "string", description: "The nextCursor of the page before." },
      },
    },
  },
  {
    name: "cancel_job",
    title: "Cancel job",
    description: "Cancels a queued or running job; it is not charged.",
    inputSchema: { type: "object", properties: jobId, required: ["id"] },
  },
  {
    name: "account",
    title: "Account",
    description: "The plan, this month's credits (used, reserved, remaining) and the plan's limits.",
    inputSchema: { type: "object", properties: {} },
  },
];
