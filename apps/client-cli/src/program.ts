import { readFileSync } from "node:fs";
import type { JobStatus, ListJobsParams } from "@octavo/client";
import { type OperationInfo, operationCatalogue } from "@octavo/client/catalogue";
import { Command, Option } from "commander";
import { showAccount } from "./commands/account.js";
import { downloadJob } from "./commands/download.js";
import { cancelJob, deleteJob, getJob, listJobs, waitForJob } from "./commands/jobs.js";
import { runOperation } from "./commands/operation.js";
import { type ExitCode, exitCodeFor } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { commanderOptions } from "./option-flags.js";
import { createReporter, programName, type Reporter } from "./report.js";
import {
  addOutputFlags,
  addRunFlags,
  parsePositiveInteger,
  parsePositiveNumber,
  runFlagAttributes,
} from "./settings.js";

const version = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

const jobStatuses: readonly JobStatus[] = ["queued", "active", "done", "failed"];

const environmentHelp = `
Environment:
  OCTAVO_API_KEY   your API key (required; never taken from a flag)
  OCTAVO_BASE_URL  the service's address (default: http://127.0.0.1:8000)

Exit codes: 0 every job done, 1 a job failed, 2 usage error, 3 the API refused the request,
4 authentication failed, 5 service unreachable or unavailable. A batch exits with the highest.`;

/** Commander's parsed flags as plain values. */
function valuesOf(command: Command): Record<string, unknown> {
  return { ...command.opts() };
}

/** Runs a command's body; an error is reported (one stderr line, a JSON line with --json) and mapped to its exit code. */
async function reported(
  command: Command,
  io: CliIo,
  body: (reporter: Reporter, values: Record<string, unknown>) => Promise<ExitCode>,
): Promise<ExitCode> {
  const values = valuesOf(command);
  const reporter = createReporter(io, { json: values.json === true, quiet: values.quiet === true });
  try {
    return await body(reporter, values);
  } catch (error) {
    reporter.error(error);
    return exitCodeFor(error);
  }
}

/** What an operation takes, for its help. */
function inputsHelp({ min, max, extensions }: OperationInfo["files"]): string {
  const kind = `${extensions.join(" ")} file`;
  if (max === 1) {
    return `Input: ${min === 0 ? "at most one" : "one"} ${kind} or http(s) URL a job; several inputs run one job each.`;
  }
  return `Inputs: ${min} to ${max} ${kind}s or http(s) URLs, sent in order in one job.`;
}

function addOperation(
  program: Command,
  operation: OperationInfo,
  io: CliIo,
  finish: (code: ExitCode) => void,
): void {
  const credits = `${operation.credits} credit${operation.credits === 1 ? "" : "s"} per job done.`;
  const command = program
    .command(operation.id)
    .summary(operation.title)
    .description(`${operation.title}: ${operation.description}\n\n${inputsHelp(operation.files)} ${credits}`)
    .argument("[inputs...]", "input files, or http(s) URLs the service downloads")
    .optionsGroup("Options of the operation:");
  const uploadable = new Set(Object.values(operation.files.named ?? {}).map((upload) => upload.insteadOf));
  for (const option of operation.options) {
    for (const flag of commanderOptions(option, uploadable.has(option.name))) {
      if ((runFlagAttributes as readonly string[]).includes(flag.attributeName())) {
        throw new Error(`${operation.id}'s option ${option.name} clashes with the common flag ${flag.long}`);
      }
      command.addOption(flag);
    }
  }
  for (const [field, upload] of Object.entries(operation.files.named ?? {})) {
    // The option's own flag takes the file, as @path.
    if (upload.insteadOf !== undefined) continue;
    const value = upload.max === 1 ? "<path>" : "<paths...>";
    const flag = new Option(`--${field} ${value}`, `${upload.description} (${upload.extensions.join(" ")})`);
    command.addOption(upload.required ? flag.makeOptionMandatory() : flag);
  }
  addRunFlags(command);
  command.action(async (inputs: string[], _flags: unknown, self: Command) => {
    const values = valuesOf(self);
    const reporter = createReporter(io, { json: values.json === true, quiet: values.quiet === true });
    try {
      finish(await runOperation(operation, inputs, values, io));
    } catch (error) {
      reporter.error(error);
      finish(exitCodeFor(error));
    }
  });
}

function listParams(values: Record<string, unknown>): ListJobsParams {
  const params: ListJobsParams = {};
  if (typeof values.status === "string") params.status = values.status as JobStatus;
  if (typeof values.operation === "string")
    params.operation = values.operation as NonNullable<ListJobsParams["operation"]>;
  if (typeof values.limit === "number") params.limit = values.limit;
  if (typeof values.cursor === "string") params.cursor = values.cursor;
  if (typeof values.createdAfter === "string") params.createdAfter = values.createdAfter;
  if (typeof values.createdBefore === "string") params.createdBefore = values.createdBefore;
  return params;
}

function addJobs(program: Command, io: CliIo, finish: (code: ExitCode) => void): void {
  const jobs = program.command("jobs").description("read, wait for, list, cancel and delete jobs");
  const action =
    (body: (id: string, reporter: Reporter, values: Record<string, unknown>) => Promise<ExitCode>) =>
    async (id: string, _flags: unknown, self: Command) =>
      finish(await reported(self, io, (reporter, values) => body(id, reporter, values)));

  addOutputFlags(
    jobs.command("get").description("a job as it is now").argument("<id>", "the job's id"),
  ).action(action((id, reporter) => getJob(id, io, reporter)));
  addOutputFlags(
    jobs
      .command("wait")
      .description("wait until the job ends; exit code 1 when it failed")
      .argument("<id>", "the job's id")
      .addOption(
        new Option("--timeout <seconds>", "give up after this long (default: 600)").argParser(
          parsePositiveNumber,
        ),
      ),
  ).action(
    action((id, reporter, values) =>
      waitForJob(
        id,
        typeof values.timeout === "number" ? Math.round(values.timeout * 1000) : undefined,
        io,
        reporter,
      ),
    ),
  );
  addOutputFlags(
    jobs
      .command("list")
      .description("the account's jobs, newest first, one page")
      .addOption(new Option("--status <status>", "only jobs in this status").choices(jobStatuses))
      .addOption(new Option("--operation <id>", "only jobs of this operation (or pipeline)"))
      .addOption(
        new Option("--limit <n>", "jobs on the page, 1 to 100 (default: 20)").argParser(parsePositiveInteger),
      )
      .addOption(new Option("--cursor <cursor>", "the page after the one that printed this cursor"))
      .addOption(new Option("--created-after <time>", "only jobs created at or after this RFC 3339 time"))
      .addOption(new Option("--created-before <time>", "only jobs created before this RFC 3339 time")),
  ).action(async (_flags: unknown, self: Command) =>
    finish(await reported(self, io, (reporter, values) => listJobs(listParams(values), io, reporter))),
  );
  addOutputFlags(
    jobs.command("cancel").description("cancel a queued or running job").argument("<id>", "the job's id"),
  ).action(action((id, reporter) => cancelJob(id, io, reporter)));
  addOutputFlags(
    jobs
      .command("delete")
      .description("delete a finished job's results now")
      .argument("<id>", "the job's id"),
  ).action(action((id, reporter) => deleteJob(id, io, reporter)));
}

/**
 * The whole command line: one subcommand per operation of the SDK's catalogue, then account, jobs and
 * download. `finish` receives the exit code of the command that ran.
 */
export function buildProgram(io: CliIo, finish: (code: ExitCode) => void): Command {
  const program = new Command(programName)
    .description("The command-line client of the octavo PDF-processing API.")
    .version(version)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // commander's "error: …" lines read like the CLI's own: "octavo-client: …".
      outputError: (text, write) => write(text.replace(/^error: /, `${programName}: `)),
    })
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", environmentHelp)
    .commandsGroup("Operations:");
  for (const operation of operationCatalogue) addOperation(program, operation, io, finish);

  program.commandsGroup("Account and jobs:");
  addOutputFlags(
    program.command("account").description("the plan, this month's credits and the plan's limits"),
  ).action(async (_flags: unknown, self: Command) =>
    finish(await reported(self, io, (reporter) => showAccount(io, reporter))),
  );
  addJobs(program, io, finish);
  addOutputFlags(
    program
      .command("download")
      .description("download the outputs of a done job (waits for it when it is still running)")
      .argument("<jobId>", "the job's id")
      .option(
        "-o, --output <path>",
        "a file for a single output, else a directory (default: the current directory)",
      ),
  ).action(async (id: string, _flags: unknown, self: Command) =>
    finish(
      await reported(self, io, (reporter, values) =>
        downloadJob(id, typeof values.output === "string" ? values.output : undefined, io, reporter),
      ),
    ),
  );
  return program;
}
