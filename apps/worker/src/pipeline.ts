import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { durationInWords, getOperation, type JobStep, type PipelineStep } from "@octavo/contracts";
import { failSpan, inSpan } from "@octavo/telemetry";
import { type ExecuteOptions, execute, type JobRunners } from "./execute.js";
import type { EngineTask, SandboxResult, TaskOutput } from "./sandbox/protocol.js";

/** A file a step reads: the request's input, or an output of the step before. */
export interface StepFile {
  path: string;
  name: string;
}

export interface PipelineRun extends ExecuteOptions {
  /** Validated by the API, each with its operation's defaults. */
  steps: readonly PipelineStep[];
  inputs: readonly StepFile[];
  /** Every step's files live under it, and go with it when the job ends. */
  workDir: string;
  runners: JobRunners;
  /** The steps' statuses, each time one starts or ends (the Job's `steps`). */
  onSteps: (steps: readonly JobStep[]) => Promise<void>;
  /** What the last step's inputs go through first (a test job's stamp, when that step's output cannot take it). */
  beforeLastStep?: (
    files: readonly StepFile[],
  ) => Promise<StepFile[] | Extract<SandboxResult, { type: "failed" }>>;
}

type StepResult = SandboxResult & { stderr?: string };
type DoneResult = Extract<SandboxResult, { type: "done" }>;

const where = (index: number, step: PipelineStep) => `steps[${index}] (${step.operation})`;

/**
 * Runs a pipeline's steps in order on the worker that took the job: each step's outputs are the next
 * step's inputs, each step's engines run under the isolation its operation has on its own, and the
 * job's time limit covers them all. A one-file operation runs once per file it receives (split →
 * compress compresses each part). The first failing step ends the pipeline with its error code, its
 * message naming the step.
 */
export async function runPipeline(run: PipelineRun): Promise<StepResult> {
  const deadline = Date.now() + run.timeoutMs;
  const statuses: JobStep[] = run.steps.map((step) => ({ operation: step.operation, status: "queued" }));
  const engines: string[] = [];
  const warnings: string[] = [];
  let files: readonly StepFile[] = run.inputs;
  let outputs: TaskOutput[] = [];
  for (const [index, step] of run.steps.entries()) {
    const startedAt = new Date().toISOString();
    statuses[index] = { operation: step.operation, status: "active", startedAt };
    await run.onSteps(statuses);
    const stepFiles = files;
    const result = await inSpan(
      `pipeline.step ${step.operation}`,
      { "octavo.operation": step.operation, "octavo.step.index": index },
      async (span) => {
        const prepared =
          run.beforeLastStep && index === run.steps.length - 1
            ? await run.beforeLastStep(stepFiles)
            : stepFiles;
        const ran = "type" in prepared ? prepared : await runStep(run, index, step, prepared, deadline);
        if (ran.type === "failed") failSpan(span, ran.code);
        return ran;
      },
    );
    const ended = { operation: step.operation, startedAt, finishedAt: new Date().toISOString() };
    if (result.type === "failed") {
      statuses[index] = { ...ended, status: "failed", error: result.code };
      await run.onSteps(statuses);
      return { ...result, message: failureMessage(run, index, step, result) };
    }
    statuses[index] = { ...ended, status: "done" };
    if (!engines.includes(result.engine)) engines.push(result.engine);
    warnings.push(...result.warnings.map((warning) => `${where(index, step)}: ${warning}`));
    outputs = result.outputs;
    files = outputs;
  }
  await run.onSteps(statuses);
  return { type: "done", outputs: withUniqueNames(outputs), engine: engines.join(" + "), warnings };
}

/** A step on the files it receives: all at once, or one run per file for a one-file operation. */
async function runStep(
  run: PipelineRun,
  index: number,
  step: PipelineStep,
  files: readonly StepFile[],
  deadline: number,
): Promise<StepResult> {
  const batches = getOperation(step.operation).files.max === 1 ? files.map((file) => [file]) : [files];
  const outputs: TaskOutput[] = [];
  const warnings: string[] = [];
  let engine = "";
  for (const [batch, inputs] of batches.entries()) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) return timedOut(run);
    const workDir = join(run.workDir, String(index), String(batch));
    await mkdir(workDir, { recursive: true });
    // The options were validated, and completed with their defaults, by the API against this schema.
    const task = {
      operation: step.operation,
      options: step.options,
      inputs: [...inputs],
      workDir,
    } as EngineTask;
    const result = await execute(task, run.runners, {
      account: run.account,
      timeoutMs: remainingMs,
      onProgress: (fraction) =>
        run.onProgress((index + (batch + fraction) / batches.length) / run.steps.length),
      ...(run.signal ? { signal: run.signal } : {}),
    });
    if (result.type === "failed")
      return result.code === "timeout" && Date.now() >= deadline ? timedOut(run) : result;
    outputs.push(...result.outputs);
    warnings.push(...result.warnings);
    engine = result.engine;
  }
  return { type: "done", outputs, engine, warnings } satisfies DoneResult;
}

function timedOut(run: PipelineRun): StepResult {
  return {
    type: "failed",
    code: "timeout",
    message: `The pipeline ran longer than ${durationInWords(run.timeoutMs / 1000)} and was stopped.`,
    detail: undefined,
  };
}

function failureMessage(
  run: PipelineRun,
  index: number,
  step: PipelineStep,
  result: Extract<SandboxResult, { type: "failed" }>,
): string {
  return `Step ${index + 1} of ${run.steps.length} (${step.operation}) failed: ${result.message}`;
}

/** Two runs of a step may name their outputs alike (a.doc and a.docx both give a.pdf): " (2)" tells them apart. */
function withUniqueNames(outputs: readonly TaskOutput[]): TaskOutput[] {
  const seen = new Set<string>();
  return outputs.map((output) => {
    let name = output.name;
    for (let copy = 2; seen.has(name.toLowerCase()); copy += 1) {
      const dot = output.name.lastIndexOf(".");
      name =
        dot > 0
          ? `${output.name.slice(0, dot)} (${copy})${output.name.slice(dot)}`
          : `${output.name} (${copy})`;
    }
    seen.add(name.toLowerCase());
    return { ...output, name };
  });
}
