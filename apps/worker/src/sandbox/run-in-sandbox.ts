import { killProcessTree } from "../process-tree.js";
import type { SandboxMessage, SandboxResult, SandboxTask } from "./protocol.js";
import type { SandboxPool } from "./sandbox-pool.js";

const STDERR_CAP = 16 * 1024;

export interface SandboxOptions {
  pool: SandboxPool;
  timeoutMs: number;
  onProgress: (fraction: number) => void;
  /** Aborting kills the child and its tree (worker shutdown). */
  signal?: AbortSignal;
}

/**
 * Runs one task in a fresh child process. The child never outlives its job: on timeout, abort or a
 * crash, the whole process tree under it is killed, so a hostile file costs its own job only.
 */
export function runInSandbox(
  task: SandboxTask,
  options: SandboxOptions,
): Promise<SandboxResult & { stderr: string }> {
  return new Promise((resolve) => {
    const child = options.pool.take();
    let stderr = "";
    let settled: (SandboxResult & { stderr: string }) | undefined;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.slice(0, STDERR_CAP - stderr.length);
    });

    const finish = (result: SandboxResult) => {
      if (settled) return;
      settled = { ...result, stderr };
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (child.pid !== undefined) killProcessTree(child.pid, { includeRoot: true });
      resolve(settled);
    };
    const timer = setTimeout(() => {
      const minutes = Math.round(options.timeoutMs / 6_000) / 10;
      finish({
        type: "failed",
        code: "timeout",
        message: `The job ran longer than ${minutes} minutes and was stopped.`,
        detail: undefined,
      });
    }, options.timeoutMs);
    const onAbort = () =>
      finish({
        type: "failed",
        code: "conversion_failed",
        message: "The worker stopped while running the job.",
        detail: "aborted",
      });
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("message", (message: SandboxMessage) => {
      if (message.type === "progress") options.onProgress(message.fraction);
      else finish(message);
    });
    child.on("exit", (code, signal) => {
      // A result the child sent just before exiting may still be in the IPC pipe: give it a moment.
      setTimeout(() => {
        finish({
          type: "failed",
          code: "conversion_failed",
          message:
            "The engine crashed while processing the file. If the file opens in a PDF viewer, try the repair operation.",
          detail: `sandbox exited with ${signal ?? code}`,
        });
      }, 200);
    });
    child.on("error", (error) => {
      finish({
        type: "failed",
        code: "conversion_failed",
        message: "The engine could not be started.",
        detail: error.message,
      });
    });
    child.send(task);
  });
}
