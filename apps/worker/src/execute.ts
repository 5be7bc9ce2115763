import { join } from "node:path";
import { failSpan, inSpan, pastSpan } from "@octavo/telemetry";
import { isSandboxed, prepareEngineOf, residentEngineOf, sandboxReuseOf } from "./operations.js";
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

type RunResult = SandboxResult & { stderr?: string };

/** One operation's engines on the task's files, each under the isolation its operation has. */
export function execute(task: EngineTask, runners: JobRunners, options: ExecuteOptions): Promise<RunResult> {
  if (isSandboxTask(task)) {
    return tracedEngine(`sandbox ${task.operation}`, task.operation, () =>
      runners.sandboxes.run(task, { ...options, reuse: sandboxReuseOf(task.operation) }),
    );
  }
  const resident = residentEngineOf(task.operation);
  const prepareEngine = prepareEngineOf(task.operation);
  return tracedEngine(`${resident} ${task.operation}`, task.operation, () =>
    prepareEngine === undefined
      ? runners.resident.run(task, options)
      : runners.resident.run(task, {
          ...options,
          // A fresh sandbox process: the step reads the client's files in JavaScript (Generate's templating).
          prepare: (inputs, signal) =>
            tracedEngine(`sandbox ${task.operation} prepare`, task.operation, () =>
              runners.sandboxes.run(
                { ...task, inputs, workDir: join(task.workDir, "prepare") },
                { ...options, signal, reuse: "none", engine: prepareEngine },
              ),
            ),
        }),
  );
}

/**
 * An engine run as a span of the job's trace: the engine the result names (`octavo.engine`, e.g. "qpdf" or
 * "MuPDF"), an error status when it failed, and a child span for each program the sandbox reports it ran.
 */
export function tracedEngine(
  name: string,
  operation: string,
  run: () => Promise<RunResult>,
): Promise<RunResult> {
  return inSpan(name, { "octavo.operation": operation }, async (span) => {
    const result = await run();
    for (const ran of result.programs ?? []) {
      pastSpan(
        ran.program,
        {
          "process.executable.name": ran.program,
          ...(ran.exitCode === null ? {} : { "process.exit.code": ran.exitCode }),
        },
        ran,
      );
    }
    if (result.type === "done") span.setAttribute("octavo.engine", result.engine);
    else {
      span.setAttribute("octavo.job.error_code", result.code);
      failSpan(span, result.code);
    }
    return result;
  });
}
