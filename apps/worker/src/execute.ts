import { join } from "node:path";
import { isSandboxed, prepareEngineOf, sandboxReuseOf } from "./operations.js";
import type { ResidentEngines } from "./resident/resident-engines.js";
import type { EngineTask, SandboxResult, SandboxTask } from "./sandbox/protocol.js";
import type { Sandboxes } from "./sandbox/sandboxes.js";

/** What runs the engines of a job. */
export interface JobRunners {
  /** Sandbox processes for the PDF engines (MuPDF.js, qpdf, Ghostscript, OCRmyPDF). */
  sandboxes: Sandboxes;
  /** Warm LibreOffice and Chromium, each in processes of their own. */
  resident: ResidentEngines;
}

export interface ExecuteOptions {
  timeoutMs: number;
  onProgress: (fraction: number) => void;
  /** Stops the engines: the worker's shutdown, or the job ended elsewhere (canceled). */
  signal?: AbortSignal;
  /** The job's account: a sandbox process kept for one account takes its jobs only (SandboxReuse). */
  account: string;
}

function isSandboxTask(task: EngineTask): task is SandboxTask {
  return isSandboxed(task.operation);
}

/** One operation's engines on the task's files, each under the isolation its operation has. */
export function execute(
  task: EngineTask,
  runners: JobRunners,
  options: ExecuteOptions,
): Promise<SandboxResult & { stderr?: string }> {
  if (isSandboxTask(task)) {
    return runners.sandboxes.run(task, { ...options, reuse: sandboxReuseOf(task.operation) });
  }
  const prepareEngine = prepareEngineOf(task.operation);
  if (prepareEngine === undefined) return runners.resident.run(task, options);
  return runners.resident.run(task, {
    ...options,
    // A fresh sandbox process: the step reads the client's files in JavaScript (Generate's templating).
    prepare: (inputs, signal) =>
      runners.sandboxes.run(
        { ...task, inputs, workDir: join(task.workDir, "prepare") },
        { ...options, signal, reuse: "none", engine: prepareEngine },
      ),
  });
}
