import {
  durationInWords,
  type EngineExport,
  type JobErrorCode,
  type OperationId,
  type OptionsOf,
} from "@octavo/contracts";
import type { SandboxedOperation } from "../operations.js";

/**
 * One job's work: local input files and where to write outputs. No secrets, no connections. A union
 * over the operations, so checking `operation` narrows `options`.
 */
export type EngineTask<K extends OperationId = OperationId> = K extends OperationId
  ? {
      operation: K;
      /** Validated, with defaults, by the API against the operation's schema. */
      options: OptionsOf<K>;
      inputs: { path: string; name: string; field?: string }[];
      workDir: string;
    }
  : never;

export type SandboxTask<K extends SandboxedOperation = SandboxedOperation> = EngineTask<K>;

/**
 * A task for an engine other than its operation's own, named by TaskOptions.engine: Generate's templating
 * (a resident operation's prepare step) and test mode's checks and stamps, which take options of their own.
 */
export interface HelperTask {
  /** The job's operation ("pipeline" for a pipeline's test-mode steps). */
  operation: string;
  options: object;
  inputs: { path: string; name: string; field?: string }[];
  workDir: string;
}

export interface TaskOutput {
  path: string;
  name: string;
  contentType: string;
}

/** Sent to a sandbox: one job to run. It answers with progress, then exactly one result. */
/**
 * The engine a sandbox calls for a task, from the operation's catalogue entry: the parent looks it up,
 * so the sandbox never loads the contracts (their schemas would grow every sandbox's heap and start).
 */
export interface SandboxEngine extends EngineExport {
  /** The engine takes all inputs as an array, not the one input (several files, or named uploads). */
  manyInputs: boolean;
}

export interface RunMessage {
  type: "run";
  /** A sandboxed operation's task, or a helper's (a resident operation's prepare step, test mode's steps). */
  task: EngineTask | HelperTask;
  engine: SandboxEngine;
  /**
   * The operator's OCTAVO_URL_ALLOWLIST: the outbound policy of an engine that makes a request (Sign PDF's
   * time-stamp server). The sandbox's environment holds none of the worker's settings.
   */
  urlAllowlist: string;
}

/** The programs a sandbox's engines ran for a job (@octavo/engines' ProgramRun), for the job's trace. */
export interface ProgramRunReport {
  program: string;
  start: number;
  end: number;
  exitCode: number | null;
}

export type SandboxMessage =
  | { type: "progress"; fraction: number }
  | {
      type: "done";
      programs?: ProgramRunReport[];
      outputs: TaskOutput[];
      engine: string;
      warnings: string[];
      /** Operation-specific facts for the job, e.g. the compression achieved. */
      report?: Record<string, unknown>;
    }
  | {
      type: "failed";
      code: JobErrorCode;
      message: string;
      detail: string | undefined;
      programs?: ProgramRunReport[];
    };

export type SandboxResult = Exclude<SandboxMessage, { type: "progress" }>;

/** The result of a job stopped at its time limit, by whichever runner ran it. */
export function timedOutResult(timeoutMs: number): SandboxResult {
  return {
    type: "failed",
    code: "timeout",
    message: `The job ran longer than ${durationInWords(timeoutMs / 1000)} and was stopped.`,
    detail: undefined,
  };
}
