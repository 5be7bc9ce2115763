import { realpathSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "./usage-error.js";

/** Where a run's outputs go: one file, or a directory holding them under their own names. */
export type OutputTarget = { kind: "file"; path: string } | { kind: "directory"; path: string };

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * `-o` names a file when the run has exactly one output and the path neither ends in "/" nor is an
 * existing directory; otherwise a directory (created when missing). No `-o`: the current directory.
 */
export function chooseTarget(output: string | undefined, cwd: string, outputCount: number): OutputTarget {
  if (output === undefined) return { kind: "directory", path: cwd };
  const path = resolve(cwd, output);
  const namesDirectory = output.endsWith("/") || output.endsWith(sep) || isDirectory(path);
  return outputCount === 1 && !namesDirectory ? { kind: "file", path } : { kind: "directory", path };
}

/** `report.pdf`, taken → `report-2.pdf`, then `report-3.pdf`: distinct names within one run. */
export class NameAllocator {
  private readonly taken = new Set<string>();

  allocate(name: string): string {
    const extension = extname(name);
    const stem = name.slice(0, name.length - extension.length);
    let candidate = name;
    for (let copy = 2; this.taken.has(candidate); copy += 1) candidate = `${stem}-${copy}${extension}`;
    this.taken.add(candidate);
    return candidate;
  }
}

/** The path as it is on disk, through symbolic links, when it exists. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Refuses a path that is one of the run's input files, before anything is written there. */
export function assertNotAnInput(path: string, inputPaths: readonly string[], jobId?: string): void {
  const target = canonical(path);
  if (!inputPaths.some((input) => canonical(input) === target)) return;
  const later =
    jobId === undefined
      ? ""
      : ` The result stays downloadable for an hour: octavo-client download ${jobId} -o <dir>/`;
  throw new UsageError(
    `not writing ${path}: it is an input file and would be overwritten; give -o another path.${later}`,
  );
}

/** An output's name as a plain file name: never a path that could leave the output directory. */
export function safeFileName(name: string): string {
  const base = basename(name.replaceAll("\\", "/"));
  return base === "" || base === "." || base === ".." ? "output" : base;
}

/** Where one output of a job is written, its name made distinct within the run. */
export function outputPath(target: OutputTarget, name: string, names: NameAllocator): string {
  return target.kind === "file" ? target.path : join(target.path, names.allocate(safeFileName(name)));
}

/** A path as shown to the user: relative to the working directory when under it. */
export function displayPath(path: string, cwd: string): string {
  const shown = relative(cwd, path);
  return shown === "" || shown.startsWith("..") || isAbsolute(shown) ? path : shown;
}
