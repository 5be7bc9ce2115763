import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { ListJobsParams, Octavo, OperationId } from "@octavo/client";
import { type OperationInfo, operationCatalogue } from "@octavo/client/catalogue";
import { fileInput } from "./files.js";
import { doneJobResult, errorResult, failedJobResult, summary, ToolFailure } from "./results.js";
import { type FileAccess, inputsArgument, jobTools, operationTool } from "./tools.js";
import { VERSION } from "./version.js";

export interface McpSettings {
  /** The SDK client, with the key of the one caller this server answers. */
  client: Octavo;
  /** Directories local paths may be in (stdio); undefined: URLs only (HTTP). */
  roots: readonly string[] | undefined;
  /** The most bytes of a text output returned inline. */
  inlineLimit: number;
}

type Extra = {
  signal: AbortSignal;
  sendNotification: (notification: ServerNotification) => Promise<void>;
};
type Arguments = Record<string, unknown>;

/** An MCP server over the SDK: one tool per operation of the catalogue, and the job and account tools. */
export function createMcpServer(settings: McpSettings): Server {
  const access: FileAccess = settings.roots === undefined ? "urls" : "paths-and-urls";
  const operations = new Map(operationCatalogue.map((operation) => [operation.id, operation]));
  const tools = [...operationCatalogue.map((operation) => operationTool(operation, access)), ...jobTools];
  const server = new Server(
    { name: "octavo", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Tools of the octavo PDF API: each operation tool takes its files in `inputs` and its options beside " +
        "them, runs the job and returns its outputs as links (text outputs inline too).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args: Arguments = request.params.arguments ?? {};
    try {
      const operation = operations.get(request.params.name as OperationId);
      if (operation) return await runOperation(settings, operation, args, request, extra);
      return await callJobTool(settings.client, request.params.name, args);
    } catch (error) {
      return errorResult(error);
    }
  });
  return server;
}

async function callJobTool(client: Octavo, name: string, args: Arguments): Promise<CallToolResult> {
  const json = (value: unknown): CallToolResult => ({
    content: [{ type: "text", text: JSON.stringify(value) }],
  });
  switch (name) {
    case "get_job":
      return json(summary(await client.jobs.get(stringArgument(args, "id"))));
    case "cancel_job":
      return json(summary(await client.jobs.cancel(stringArgument(args, "id"))));
    case "list_jobs": {
      const page = await client.jobs.list(args as ListJobsParams);
      return json({ ...page, data: page.data.map(summary) });
    }
    case "account":
      return json(await client.account.get());
    default:
      throw new ToolFailure("unknown_tool", `There is no tool ${name}; tools/list names them.`);
  }
}

function stringArgument(args: Arguments, name: string): string {
  const value = args[name];
  if (typeof value !== "string" || value === "")
    throw new ToolFailure("invalid_arguments", `${name} must be a string.`);
  return value;
}

/**
 * Submits the job, waits for it (reporting its progress when the caller asked with a progress token),
 * and answers with its outputs. A cancellation from the caller cancels the job.
 */
async function runOperation(
  settings: McpSettings,
  operation: OperationInfo,
  args: Arguments,
  request: CallToolRequest,
  extra: Extra,
): Promise<CallToolResult> {
  const { client } = settings;
  const files = [];
  const paths = args[inputsArgument] ?? [];
  if (!Array.isArray(paths))
    throw new ToolFailure("invalid_arguments", `${inputsArgument} must be an array of paths or URLs.`);
  for (const path of paths) files.push(await fileInput(path, settings.roots));
  for (const field of Object.keys(operation.files.named ?? {})) {
    const named = args[field];
    if (named === undefined) continue;
    if (!Array.isArray(named))
      throw new ToolFailure("invalid_arguments", `${field} must be an array of paths.`);
    for (const path of named) files.push(await fileInput(path, settings.roots, field));
  }
  const options = Object.fromEntries(
    operation.options.flatMap((option) => (option.name in args ? [[option.name, args[option.name]]] : [])),
  );
  const created = await client.submit(operation.id, files, options, { signal: extra.signal });

  const token = request.params._meta?.progressToken;
  let reported = -1;
  try {
    const job = await client.jobs.wait(created.id, {
      signal: extra.signal,
      pollSeconds: 2,
      onProgress: (current) => {
        if (token === undefined || current.progress <= reported) return;
        reported = current.progress;
        void extra
          .sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress: current.progress,
              total: 1,
              message: `job ${current.status}`,
            },
          })
          .catch(() => undefined);
      },
    });
    if (job.status !== "done") return failedJobResult(job);
    return await doneJobResult({ ...job, status: "done", outputs: job.outputs ?? [] }, settings.inlineLimit);
  } catch (error) {
    if (!extra.signal.aborted) throw error;
    // The caller canceled the request: so is the job (not charged); the caller reads no answer.
    const canceled = await client.jobs.cancel(created.id).catch(() => undefined);
    return errorResult(
      new ToolFailure(
        "canceled",
        `Job ${created.id} was canceled${canceled ? "" : " (it may have ended first)"}.`,
      ),
    );
  }
}
