import { type Command, InvalidArgumentError, Option } from "commander";

/** The flags every operation takes, besides its own options. */
export interface RunSettings {
  output: string | undefined;
  webhookUrl: string | undefined;
  json: boolean;
  quiet: boolean;
  parallel: number;
  wait: boolean;
  /** Milliseconds to wait for each job; undefined: the SDK's default (10 minutes). */
  timeoutMs: number | undefined;
  optionsJson: string | undefined;
}

export function parsePositiveInteger(raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new InvalidArgumentError("Not a positive integer.");
  return Number(raw);
}

export function parsePositiveNumber(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError("Not a positive number.");
  }
  return value;
}

const commonGroup = "Common options:";

/** --json and -q/--quiet, which every command takes. */
export function addOutputFlags(command: Command): Command {
  return command
    .addOption(
      new Option("--json", "machine output: one JSON line per job (or answer) on stdout").helpGroup(
        commonGroup,
      ),
    )
    .addOption(new Option("-q, --quiet", "print nothing but errors").helpGroup(commonGroup));
}

/** The flags of every operation subcommand. */
export function addRunFlags(command: Command): Command {
  const flags = [
    new Option(
      "-o, --output <path>",
      'where to write: a file when there is one output and the path neither ends in "/" nor is a ' +
        "directory, else a directory (created), outputs under their own names (default: the current directory)",
    ),
    new Option("--options <json>", "the options as one JSON object; flags given override its keys"),
    new Option("--webhook-url <url>", "the service POSTs the job there when it ends (paid plans)"),
    new Option("--parallel <n>", "jobs at once in a batch").argParser(parsePositiveInteger).default(4),
    new Option("--no-wait", "print the created jobs and exit, without waiting or downloading"),
    new Option("--timeout <seconds>", "give up waiting for a job after this long (default: 600)").argParser(
      parsePositiveNumber,
    ),
  ];
  for (const flag of flags) command.addOption(flag.helpGroup(commonGroup));
  return addOutputFlags(command);
}

/** The attribute names of the run flags, which an operation's own options must not reuse. */
export const runFlagAttributes = [
  "output",
  "options",
  "webhookUrl",
  "parallel",
  "wait",
  "timeout",
  "json",
  "quiet",
  "help",
] as const;

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The run flags out of commander's parsed values. */
export function runSettings(values: Readonly<Record<string, unknown>>): RunSettings {
  const timeout = values.timeout;
  return {
    output: optionalString(values.output),
    webhookUrl: optionalString(values.webhookUrl),
    json: values.json === true,
    quiet: values.quiet === true,
    parallel: typeof values.parallel === "number" ? values.parallel : 4,
    wait: values.wait !== false,
    timeoutMs: typeof timeout === "number" ? Math.round(timeout * 1000) : undefined,
    optionsJson: optionalString(values.options),
  };
}
