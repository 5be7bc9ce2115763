import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { FileInput } from "@octavo/client";
import { UsageError } from "./usage-error.js";

/** One input of the command line: a local file (uploaded) or an http(s) URL (downloaded by the service). */
export type CliInput =
  | { kind: "file"; argument: string; path: string }
  | { kind: "url"; argument: string; url: string };

const urlPattern = /^https?:\/\//i;

/** Classifies and checks the inputs: a path that is not an existing file is a usage error. */
export function resolveInputs(argumentsGiven: readonly string[], cwd: string): CliInput[] {
  return argumentsGiven.map((argument) => {
    if (urlPattern.test(argument)) return { kind: "url", argument, url: argument };
    const path = resolve(cwd, argument);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) throw new UsageError(`input file not found: ${argument}`);
    if (!stats.isFile()) throw new UsageError(`input is not a file: ${argument}`);
    return { kind: "file", argument, path };
  });
}

/** What the SDK is given for an input. */
export function sdkInput(input: CliInput): FileInput {
  return input.kind === "url" ? { url: input.url } : { path: input.path };
}

/** A short name for an input in messages and progress bars. */
export function inputLabel(inputs: readonly CliInput[]): string {
  const [first] = inputs;
  if (first === undefined) return "(no input)";
  const name = first.kind === "file" ? basename(first.path) : first.url;
  return inputs.length > 1 ? `${name} +${inputs.length - 1}` : name;
}
