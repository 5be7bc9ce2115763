import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Job } from "@octavo/client";
import {
  assertNotAnInput,
  chooseTarget,
  displayPath,
  type NameAllocator,
  outputPath,
} from "./output-plan.js";
import type { Reporter } from "./report.js";

/** What decides where a run's outputs go. */
export interface OutputContext {
  /** The -o flag as given. */
  output: string | undefined;
  cwd: string;
  /** Shared by the run's jobs, so two outputs of one name get distinct names. */
  names: NameAllocator;
  /** The run's input files, never to be overwritten. */
  inputPaths: readonly string[];
  /** More than one job in the run: -o is then always a directory. */
  batch: boolean;
}

/**
 * Downloads a done job's outputs. Returns the paths written and, when one could not be written (an
 * input in the way, an expired result, a disk error), why: the outputs before it stay written.
 */
export async function writeJobOutputs(
  job: Job,
  context: OutputContext,
): Promise<{ files: string[]; failure?: unknown }> {
  const outputs = job.outputs ?? [];
  const target = chooseTarget(
    context.output,
    context.cwd,
    context.batch ? Number.POSITIVE_INFINITY : outputs.length,
  );
  const files: string[] = [];
  try {
    await mkdir(target.kind === "directory" ? target.path : dirname(target.path), { recursive: true });
    for (const output of outputs) {
      const path = outputPath(target, output.name, context.names);
      assertNotAnInput(path, context.inputPaths, job.id);
      files.push((await output.download(path)) ?? path);
    }
    return { files };
  } catch (failure) {
    return { files, failure };
  }
}

/** A done job's report: the files written (stdout), or its JSON line with them; its warnings (stderr). */
export function reportDone(
  reporter: Reporter,
  job: Job,
  files: readonly string[],
  cwd: string,
  label: string,
): void {
  if (reporter.json) reporter.jsonLine({ ...job, files });
  else for (const file of files) reporter.result(displayPath(file, cwd));
  for (const warning of job.warnings ?? []) reporter.notice(`${label}: warning: ${warning}`);
}

/** A failed job's report: its error code and message (stderr), and its JSON line with --json. */
export function reportFailed(reporter: Reporter, job: Job, label: string): void {
  if (reporter.json) reporter.jsonLine({ ...job, files: [] });
  reporter.alert(`${label}: job ${job.id} failed: ${job.error ?? "failed"}: ${job.message ?? "no message"}`);
}
