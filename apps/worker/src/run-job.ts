import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JobKind, PIPELINE, type PipelineStep } from "@octavo/contracts";
import {
  type Outcome,
  openSecretOptions,
  type StartedJob,
  type StoredFile,
  secretOptionsField,
} from "@octavo/core";
import type { JobFileRow } from "@octavo/db";
import type { JobEndedListener } from "@octavo/queue";
import { BlobNotFoundError } from "@octavo/storage";
import {
  activeSpan,
  contextFrom,
  failSpan,
  inSpan,
  pastSpan,
  SpanKind,
  type TraceCarrier,
} from "@octavo/telemetry";
import { afterSettled } from "./after-settled.js";
import type { WorkerContext } from "./context.js";
import { type ExecuteOptions, execute, type JobRunners } from "./execute.js";
import { runPipeline } from "./pipeline.js";
import type { EngineTask } from "./sandbox/protocol.js";
import { type RunEngines, runTestJob } from "./test-mode.js";

const PROGRESS_WRITE_INTERVAL_MS = 500;

/** What every log line about a job names: the job, the request that created it, its operation. */
interface JobLog {
  jobId: string;
  requestId: string | undefined;
  operation: string;
}

/**
 * Writes the job's progress at most every half second, the first time half a second after it started:
 * a job that ends sooner (most light jobs) writes none, and its poller sees it done instead.
 */
function progressWriter(ctx: WorkerContext, log: JobLog): (fraction: number) => void {
  let lastWrite = Date.now();
  return (fraction) => {
    const now = Date.now();
    if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
    lastWrite = now;
    ctx.jobs
      .progress(log.jobId, fraction)
      .catch((error: unknown) => ctx.logger.warn({ err: error, ...log }, "progress not saved"));
  };
}

async function deleteInputs(ctx: WorkerContext, inputs: readonly JobFileRow[]): Promise<void> {
  await Promise.all(inputs.map((input) => ctx.store.delete(input.storage_key)));
  await ctx.jobs.filesDeleted(inputs);
}

/**
 * Settles the run (one transaction), then sends its webhook and says it ended. False: the job had
 * already ended (canceled, or failed by the janitor's deadline), and this run's outcome is nobody's.
 */
async function settle(ctx: WorkerContext, started: StartedJob, outcome: Outcome): Promise<boolean> {
  return inSpan("job.settle", { "octavo.job.status": outcome.status }, async () => {
    if (outcome.status === "failed") {
      // The job's span shows the failure, with the code the client gets.
      activeSpan().setAttribute("octavo.job.error_code", outcome.code);
    }
    const settled = await ctx.jobs.settle(started, outcome);
    await afterSettled(ctx, settled);
    return settled !== undefined;
  });
}

/**
 * How a run ended: the job is finished (settled now, or already before); handed back (worker shutdown);
 * or not started, its account running its plan's cap of the lane's jobs (`cap`): it waits its turn.
 */
export type RunOutcome = "finished" | "handed-back" | { kind: "account-busy"; cap: number };

/**
 * One job, start to end: mark it active, copy its inputs into a private work dir, run the engines in
 * the sandbox (a pipeline's, step by step), store the outputs, settle the job, delete the inputs.
 * Engine problems end the job as `failed`; only infrastructure errors (database, storage) throw, and
 * the queue runs the job again after a backoff (@octavo/queue's OPERATION_JOB_OPTIONS: 2, 4 and 8 s)
 * before it fails.
 */
export async function runJob(
  ctx: WorkerContext,
  jobId: string,
  options: {
    /** The queue the job came from. */
    operation: JobKind;
    runners: JobRunners;
    /** The worker's shutdown: the job's engines are stopped and the job handed back. */
    signal?: AbortSignal;
    /** Called once the engines have ended: storing the outputs and settling need no engine slot. */
    enginesDone?: () => void;
    /** Notices of jobs that ended elsewhere (canceled): this job's engines are stopped on its notice. */
    endedElsewhere?: Pick<JobEndedListener, "watch">;
    /** The queue message's trace context (the API's job.accept) and when it was queued. */
    trace?: { carrier: TraceCarrier | undefined; queuedAt: number };
  },
): Promise<RunOutcome> {
  const parent = contextFrom(options.trace?.carrier);
  const messaging = {
    "octavo.job.id": jobId,
    "octavo.operation": options.operation,
    "messaging.system": "bullmq",
    "messaging.destination.name": options.operation,
  };
  if (options.trace) {
    pastSpan("job.queued", messaging, { start: options.trace.queuedAt, end: Date.now() }, { parent });
  }
  return inSpan(
    "job.run",
    { ...messaging, "messaging.operation.type": "process" },
    async () => {
      // Watching before starting: a cancel that lands after the start is heard.
      const ended = new AbortController();
      const unwatch = options.endedElsewhere?.watch(jobId, () => ended.abort());
      try {
        return await startAndRun(ctx, jobId, options, ended.signal);
      } finally {
        unwatch?.();
      }
    },
    { parent, kind: SpanKind.CONSUMER },
  );
}

async function startAndRun(
  ctx: WorkerContext,
  jobId: string,
  {
    operation,
    runners,
    signal,
    enginesDone,
  }: { operation: JobKind; runners: JobRunners; signal?: AbortSignal; enginesDone?: () => void },
  endedElsewhere: AbortSignal,
): Promise<RunOutcome> {
  const started = await ctx.jobs.start(jobId, operation);
  if (started.kind === "ended") return "finished"; // a duplicate or late delivery
  if (started.kind === "account-busy") return { kind: "account-busy", cap: started.cap };
  const { job, inputs } = started;
  activeSpan().setAttribute("octavo.account.id", job.account_id);
  const log: JobLog = { jobId, requestId: job.request_id ?? undefined, operation: job.operation };
  ctx.logger.info({ ...log, attempt: job.attempts }, "job started");
  const workDir = await mkdtemp(join(tmpdir(), "octavo-job-"));
  try {
    const downloaded = await downloadInputs(ctx, inputs, join(workDir, "in"));
    if ("missing" in downloaded) {
      await settle(ctx, started, {
        status: "failed",
        code: "invalid_input",
        message: `The uploaded file ${downloaded.missing} is no longer stored; send it again.`,
      });
      failSpan(activeSpan(), "invalid_input");
      return "finished";
    }
    const { local, secretOptions } = downloaded;

    const running: ExecuteOptions = {
      account: job.account_id,
      timeoutMs: ctx.config.jobTimeoutSeconds * 1000,
      onProgress: progressWriter(ctx, log),
      signal: signal ? AbortSignal.any([signal, endedElsewhere]) : endedElsewhere,
    };
    // The options were validated, and completed with their defaults, by the API against this schema; the
    // secret ones were kept out of the row, sealed beside the inputs.
    const options = { ...JSON.parse(job.options), ...secretOptions };
    const steps = job.operation === PIPELINE ? (options.steps as PipelineStep[]) : undefined;
    const runEngines: RunEngines = (inputs, beforeLastStep) =>
      steps
        ? runPipeline({
            ...running,
            steps,
            inputs,
            workDir: join(workDir, "steps"),
            runners,
            onSteps: (statuses) => ctx.jobs.recordSteps(jobId, statuses),
            ...(beforeLastStep ? { beforeLastStep } : {}),
          })
        : execute(
            { operation: job.operation, options, inputs, workDir: join(workDir, "out") } as EngineTask,
            runners,
            running,
          );
    const result =
      job.mode === "test"
        ? await runTestJob(
            {
              operation: job.operation,
              ...(steps ? { steps: steps.map((step) => step.operation) } : {}),
              inputs: local,
              workDir,
              runners,
              running,
            },
            runEngines,
          )
        : await runEngines(local);
    enginesDone?.();

    if (endedElsewhere.aborted) {
      // Canceled while it ran: the engines were stopped, and the job's end is already recorded.
      ctx.logger.info(log, "job ended elsewhere; its engines were stopped");
    } else if (signal?.aborted) {
      // Worker shutdown: the engines were stopped; the job goes back to the queue untouched.
      return "handed-back";
    } else if (result.type === "done") {
      const stored = await storeOutputs(ctx, jobId, result.outputs);
      const settled = await settle(ctx, started, {
        status: "done",
        outputs: stored,
        work: {
          engine: result.engine,
          warnings: result.warnings,
          ...(result.report ? { report: result.report } : {}),
        },
      });
      if (settled) {
        ctx.logger.info({ ...log, engine: result.engine, warnings: result.warnings.length }, "job done");
      } else {
        // It ended meanwhile (canceled; the notice was missed): the outputs stored are nobody's.
        await Promise.all(stored.map((file) => ctx.store.delete(file.storageKey)));
        ctx.logger.info(log, "job ended elsewhere; its outputs were discarded");
      }
    } else {
      await settle(ctx, started, { status: "failed", code: result.code, message: result.message });
      failSpan(activeSpan(), result.code);
      ctx.logger.info(
        {
          ...log,
          code: result.code,
          detail: result.detail,
          stderr: result.stderr || undefined,
        },
        "job failed",
      );
    }
    await deleteInputs(ctx, inputs);
    return "finished";
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

type LocalInput = { path: string; name: string; field?: string };

/**
 * Copies the job's inputs from storage into `dir`, and opens its sealed secret options; `missing`: an
 * input no longer stored (the job fails, naming it).
 */
function downloadInputs(
  ctx: WorkerContext,
  inputs: readonly JobFileRow[],
  dir: string,
): Promise<{ local: LocalInput[]; secretOptions: Record<string, unknown> } | { missing: string }> {
  return inSpan("job.inputs", { "octavo.files": inputs.length }, async () => {
    const local: LocalInput[] = [];
    let secretOptions: Record<string, unknown> = {};
    await mkdir(dir);
    for (const input of inputs) {
      // The field and position keep names apart; the extension stays, since engines such as LibreOffice read it.
      const extension = /\.[A-Za-z0-9]{1,8}$/.exec(input.name)?.[0] ?? "";
      const stem = input.field ? `${input.field}-${input.position}` : String(input.position);
      const path = join(dir, `${stem}${extension.toLowerCase()}`);
      try {
        if (input.field === secretOptionsField) {
          const sealed = Buffer.concat(await (await ctx.store.get(input.storage_key)).toArray());
          secretOptions = openSecretOptions(ctx.config.secretKey, sealed);
          continue;
        }
        await ctx.store.getToFile(input.storage_key, path);
      } catch (error) {
        if (!(error instanceof BlobNotFoundError)) throw error;
        return { missing: input.name };
      }
      local.push({ path, name: input.name, ...(input.field ? { field: input.field } : {}) });
    }
    return { local, secretOptions };
  });
}

/** Puts the outputs into storage under the job's keys, in order. */
function storeOutputs(
  ctx: WorkerContext,
  jobId: string,
  outputs: readonly { path: string; name: string; contentType: string }[],
): Promise<StoredFile[]> {
  return inSpan("job.outputs", { "octavo.files": outputs.length }, async () => {
    const stored: StoredFile[] = [];
    for (const [position, output] of outputs.entries()) {
      const storageKey = `jobs/${jobId}/outputs/${position}`;
      const { size } = await ctx.store.putFile(storageKey, output.path);
      stored.push({ name: output.name, size, contentType: output.contentType, storageKey });
    }
    return stored;
  });
}
