import { resolve } from "node:path";
import type { FileInput, Octavo, OperationId, OperationOptions } from "@octavo/client";
import type { OperationInfo } from "@octavo/client/catalogue";
import { createClient, pollSecondsFor } from "../client.js";
import { ExitCode, exitCodeFor, worstExitCode } from "../exit-codes.js";
import { type CliInput, inputLabel, resolveInputs, sdkInput } from "../inputs.js";
import type { CliIo } from "../io.js";
import { type OutputContext, reportDone, reportFailed, writeJobOutputs } from "../job-outputs.js";
import { optionsFromFlags, uploadedInstead } from "../option-flags.js";
import { assertNotAnInput, NameAllocator } from "../output-plan.js";
import { mapLimited } from "../pool.js";
import { createProgressDisplay, type JobProgress, progressEnabled } from "../progress.js";
import { createReporter, type Reporter } from "../report.js";
import { type RunSettings, runSettings } from "../settings.js";
import { UsageError } from "../usage-error.js";

/**
 * The jobs of a run: a one-file operation given several inputs runs once per input (a batch);
 * any other sends all its inputs, in order, in one job.
 */
export function jobGroups<T>(operation: Pick<OperationInfo, "files">, inputs: readonly T[]): T[][] {
  return operation.files.max === 1 && inputs.length > 1 ? inputs.map((input) => [input]) : [[...inputs]];
}

/** The input count the operation takes, checked before anything is sent. */
export function checkInputCount(operation: Pick<OperationInfo, "id" | "files">, count: number): void {
  const { min, max } = operation.files;
  const files = (n: number) => (n === 1 ? "1 input" : `${n} inputs`);
  if (count < min) throw new UsageError(`${operation.id} needs at least ${files(min)}; got ${count}`);
  if (max > 1 && count > max)
    throw new UsageError(`${operation.id} takes at most ${files(max)} a job; got ${count}`);
}

interface Run {
  operation: OperationInfo;
  options: Record<string, unknown>;
  /** The files of the operation's named upload fields (--certificate), sent with every job of the run. */
  named: FileInput[];
  settings: RunSettings;
  client: Octavo;
  reporter: Reporter;
  outputs: OutputContext;
  io: CliIo;
}

/** `octavo-client <operation> [inputs...] [flags]`: submits, waits, downloads; the run's exit code. */
export async function runOperation(
  operation: OperationInfo,
  inputArguments: readonly string[],
  values: Readonly<Record<string, unknown>>,
  io: CliIo,
): Promise<ExitCode> {
  const settings = runSettings(values);
  const options = optionsFromFlags(operation, values, settings.optionsJson);
  const client = createClient(io);
  const inputs = resolveInputs(inputArguments, io.cwd);
  checkInputCount(operation, inputs.length);
  const inputPaths = inputs.flatMap((input) => (input.kind === "file" ? [input.path] : []));
  if (settings.output !== undefined) assertNotAnInput(resolve(io.cwd, settings.output), inputPaths);

  const groups = jobGroups(operation, inputs);
  const bars = progressEnabled(io.stderr, settings);
  const display = createProgressDisplay(io.stderr, bars, groups.length);
  const reporter = createReporter(
    io,
    { json: settings.json, quiet: settings.quiet, holdResults: bars },
    (line) => display.log(line),
  );
  const run: Run = {
    operation,
    options,
    named: namedUploads(operation, values, io.cwd),
    settings,
    client,
    reporter,
    io,
    outputs: {
      output: settings.output,
      cwd: io.cwd,
      names: new NameAllocator(),
      inputPaths,
      batch: groups.length > 1,
    },
  };
  try {
    const codes = await mapLimited(groups, settings.parallel, (group) =>
      runJob(run, group, display.track(labelOf(run, group))),
    );
    return worstExitCode(codes);
  } finally {
    display.stop();
    reporter.flush();
  }
}

/** The paths given to the flags of the operation's named upload fields (--certificate signer.p12, --data @data.json). */
function namedUploads(
  operation: OperationInfo,
  values: Readonly<Record<string, unknown>>,
  cwd: string,
): FileInput[] {
  return Object.entries(operation.files.named ?? {}).flatMap(([field, upload]) => {
    const standsFor = operation.options.find((option) => option.name === upload.insteadOf);
    const given = standsFor === undefined ? values[field] : uploadedInstead(standsFor, values);
    const paths = given === undefined ? [] : Array.isArray(given) ? given.map(String) : [String(given)];
    return paths.map((path) => ({ path: resolve(cwd, path), field }));
  });
}

/** What names a job in messages: its input, or the page of html-to-pdf's --url. */
function labelOf(run: Pick<Run, "options">, group: readonly CliInput[]): string {
  const page = run.options.url;
  return group.length === 0 && typeof page === "string" ? page : inputLabel(group);
}

/** One job: submit (upload progress), wait (job progress), download; never throws, returns its exit code. */
async function runJob(run: Run, group: readonly CliInput[], progress: JobProgress): Promise<ExitCode> {
  const { client, settings, reporter } = run;
  const label = labelOf(run, group);
  try {
    const created = await client.submit(
      run.operation.id,
      [...group.map(sdkInput), ...run.named],
      // The catalogue's operation is only known at run time; the API validates the options.
      run.options as OperationOptions[OperationId],
      {
        ...(settings.webhookUrl === undefined ? {} : { webhookUrl: settings.webhookUrl }),
        onUploadProgress: ({ sent, total }) => progress.uploading(sent, total),
      },
    );
    if (!settings.wait) {
      progress.finish(created.status);
      if (reporter.json) reporter.jsonLine(created);
      else reporter.result(`${created.id}\t${created.status}\t${label}`);
      return ExitCode.ok;
    }
    progress.running(created.status, 0);
    const job = await client.jobs.wait(created.id, {
      pollSeconds: pollSecondsFor(client),
      onProgress: (current) => progress.running(current.status, current.progress),
      ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
    });
    if (job.status === "failed") {
      progress.finish("failed");
      reportFailed(reporter, job, label);
      return ExitCode.jobFailed;
    }
    const { files, failure } = await writeJobOutputs(job, run.outputs);
    progress.finish(failure === undefined ? "done" : "not written");
    reportDone(reporter, job, files, run.io.cwd, label);
    if (failure === undefined) return ExitCode.ok;
    reporter.error(failure, label);
    return exitCodeFor(failure);
  } catch (error) {
    progress.finish("error");
    reporter.error(error, label);
    return exitCodeFor(error);
  }
}
