import type { JobErrorCode, OperationId } from "@octavo/contracts";

/** Sent to the sandbox child: local input files and where to write outputs. No secrets, no connections. */
export interface SandboxTask {
  operation: OperationId;
  options: Record<string, unknown>;
  inputs: { path: string; name: string }[];
  workDir: string;
}

export interface TaskOutput {
  path: string;
  name: string;
  contentType: string;
}

export type SandboxMessage =
  | { type: "progress"; fraction: number }
  | {
      type: "done";
      outputs: TaskOutput[];
      engine: string;
      warnings: string[];
      /** Operation-specific facts for the job, e.g. the compression achieved. */
      report?: Record<string, unknown>;
    }
  | { type: "failed"; code: JobErrorCode; message: string; detail: string | undefined };

export type SandboxResult = Exclude<SandboxMessage, { type: "progress" }>;
