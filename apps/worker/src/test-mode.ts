import { join } from "node:path";
import { getOperation, type OperationId, PIPELINE, testModeLimits } from "@octavo/contracts";
import { type ExecuteOptions, type JobRunners, tracedEngine } from "./execute.js";
import type { HelperTask, SandboxEngine, SandboxResult, TaskOutput } from "./sandbox/protocol.js";

/*
 * A test job (a test key's) runs the real engines between two sandbox steps of @octavo/test-mark: its
 * PDF inputs are held to test mode's page limit first (and stamped, for an operation whose catalogue
 * testStamp is "inputs"), and its outputs are stamped "octavo test mode" afterwards (PDFs held to the limit,
 * for the inputs that could not be counted). A step that fails fails the job: nothing is stored unmarked.
 */

type RunResult = SandboxResult & { stderr?: string };
type Failed = Extract<SandboxResult, { type: "failed" }>;
type TaskFile = HelperTask["inputs"][number];

/** The job's engines on these inputs; `beforeLastStep`, a pipeline's: what its last step's inputs go through. */
export type RunEngines = (
  inputs: TaskFile[],
  beforeLastStep?: (files: readonly TaskFile[]) => Promise<TaskFile[] | Failed>,
) => Promise<RunResult>;

export interface TestJob {
  /** An operation id, or "pipeline". */
  operation: string;
  /** A pipeline's steps' operations, in order. */
  steps?: readonly OperationId[];
  inputs: TaskFile[];
  workDir: string;
  runners: JobRunners;
  running: ExecuteOptions;
}

const testMark = (name: string): SandboxEngine => ({
  module: "@octavo/test-mark",
  export: name,
  manyInputs: true,
});
/** The two steps' sandbox engines. */
export const testModeEngines = {
  inputs: testMark("prepareTestInputs"),
  outputs: testMark("markTestOutputs"),
};

export async function runTestJob(job: TestJob, runEngines: RunEngines): Promise<RunResult> {
  const last = job.operation === PIPELINE ? job.steps?.at(-1) : (job.operation as OperationId);
  const entry = last === undefined ? undefined : getOperation(last);
  const stampInputs = entry?.testStamp === "inputs";
  const pipeline = job.operation === PIPELINE;

  const checked = await prepareInputs(job, job.inputs, "test-inputs", {
    pagesPerInput: testModeLimits.pagesPerInput,
    mark: stampInputs && !pipeline,
  });
  if ("type" in checked) return checked;
  const result = await runEngines(
    checked,
    pipeline && stampInputs
      ? (files) => prepareInputs(job, [...files], "test-last-step", { mark: true })
      : undefined,
  );
  if (result.type === "failed" || stampInputs) return result;

  const documents = Math.max(1, job.inputs.filter((input) => input.field === undefined).length);
  // An output made of several inputs (merged, or by a pipeline) may have the pages of them all.
  const fromAll = pipeline || entry?.output.count === "one";
  return markOutputs(job, result, testModeLimits.pagesPerInput * (fromAll ? documents : 1));
}

/** The inputs checked (pages) and, with `mark`, stamped: the documents replaced, the named files kept. */
async function prepareInputs(
  job: TestJob,
  inputs: TaskFile[],
  dir: string,
  options: { pagesPerInput?: number; mark: boolean },
): Promise<TaskFile[] | Failed> {
  const result = await tracedEngine("sandbox test-mode inputs", job.operation, () =>
    job.runners.sandboxes.run(
      { operation: job.operation, options, inputs, workDir: join(job.workDir, dir) },
      // MuPDF (erased with the job) and qpdf read the files; the stamp's text is ours.
      { ...stepOptions(job), reuse: "shared", engine: testModeEngines.inputs },
    ),
  );
  if (result.type === "failed") return result;
  if (!options.mark) return inputs;
  // The stamped copies come in the order of the documents; named uploads (a certificate) stay as they are.
  let next = 0;
  const prepared = inputs.map((input) => (input.field === undefined ? result.outputs[next++] : input));
  if (next !== result.outputs.length || prepared.some((file) => file === undefined)) {
    throw new Error(`the test-mode stamp returned ${result.outputs.length} files for ${next} documents`);
  }
  return prepared.filter((file): file is TaskFile => file !== undefined);
}

async function markOutputs(job: TestJob, done: Extract<RunResult, { type: "done" }>, maxPages: number) {
  const outputs = done.outputs;
  const result = await tracedEngine("sandbox test-mode outputs", job.operation, () =>
    job.runners.sandboxes.run(
      {
        operation: job.operation,
        options: {
          contentTypes: outputs.map((output) => output.contentType),
          pagesPerInput: testModeLimits.pagesPerInput,
          maxPages,
        },
        inputs: outputs.map(({ path, name }) => ({ path, name })),
        workDir: join(job.workDir, "test-outputs"),
      },
      // Office, text and JSON outputs are read in JavaScript: a fresh process, as their operations have.
      {
        ...stepOptions(job),
        reuse: outputs.every(isPdf) ? "shared" : "none",
        engine: testModeEngines.outputs,
      },
    ),
  );
  if (result.type === "failed") return result;
  return { ...done, outputs: result.outputs };
}

function isPdf(output: TaskOutput): boolean {
  return output.contentType === "application/pdf";
}

function stepOptions(job: TestJob): ExecuteOptions {
  // The steps report no progress: the job's progress is its engines'.
  return { ...job.running, onProgress: () => undefined };
}
