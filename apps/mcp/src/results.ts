import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DoneJob, Job } from "@octavo/client";
import { OctavoError } from "@octavo/client";

/** A refusal of the tool's own (a path outside the roots), reported as the API reports its errors. */
export class ToolFailure extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** What an error result carries: the API's `error`, `message` and `detail`, so an agent can act on it. */
export function errorResult(error: unknown): CallToolResult {
  const body =
    error instanceof OctavoError
      ? { error: error.error, message: error.message, detail: error.detail, requestId: error.requestId }
      : error instanceof ToolFailure
        ? { error: error.error, message: error.message }
        : { error: "internal_error", message: error instanceof Error ? error.message : String(error) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** A job that ended failed, as an error result with its code and message. */
export function failedJobResult(job: Job): CallToolResult {
  const body = {
    error: job.error ?? "failed",
    message: job.message ?? `Job ${job.id} failed.`,
    jobId: job.id,
  };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

const textTypes = /^(text\/|application\/json)/;

/**
 * A done job: a summary, each output as a resource link, and text outputs (Markdown, JSON, text) inline
 * too when at most `inlineLimit` bytes, so an agent reads a converted document directly.
 */
export async function doneJobResult(job: DoneJob, inlineLimit: number): Promise<CallToolResult> {
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(summary(job)) }];
  for (const output of job.outputs) {
    if (output.url !== undefined) {
      content.push({
        type: "resource_link",
        uri: output.url,
        name: output.name,
        mimeType: output.contentType,
      });
    }
    if (textTypes.test(output.contentType) && output.size <= inlineLimit && output.url !== undefined) {
      content.push({ type: "text", text: new TextDecoder().decode(await output.bytes()) });
    }
  }
  return { content };
}

/** The job as the API gives it, without the SDK's download methods. */
export function summary(job: Job): Record<string, unknown> {
  const { outputs, ...rest } = job;
  return {
    ...rest,
    ...(outputs
      ? { outputs: outputs.map(({ name, size, contentType, url }) => ({ name, size, contentType, url })) }
      : {}),
  };
}
