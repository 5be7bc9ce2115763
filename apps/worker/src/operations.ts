import {
  type Catalogue,
  catalogue,
  type OperationId,
  type ResidentEngine,
  type RunnerSpec,
  type SandboxReuse,
} from "@octavo/contracts";
import type { SandboxEngine } from "./sandbox/protocol.js";

/*
 * How each operation runs, read from its catalogue entry's runner: a sandbox process (reused or not)
 * or one of the worker's resident engines.
 */

/** The operations whose engines run in a sandbox process. */
export type SandboxedOperation = {
  [K in OperationId]: Catalogue[K]["runner"]["runner"] extends "sandbox" ? K : never;
}[OperationId];
/** The operations of the worker's resident engines. */
export type ResidentOperation = Exclude<OperationId, SandboxedOperation>;

export function isSandboxed(operation: OperationId): operation is SandboxedOperation {
  return catalogue[operation].runner.runner === "sandbox";
}

/** Which job the operation's sandbox process may take next (see SandboxReuse). */
export function sandboxReuseOf(operation: SandboxedOperation): SandboxReuse {
  return catalogue[operation].runner.reuse;
}

/** The engine a sandbox calls for the operation, and whether it takes all inputs (named uploads included) at once. */
export function sandboxEngineOf(operation: SandboxedOperation): SandboxEngine {
  const entry: Catalogue[SandboxedOperation] = catalogue[operation];
  const files: Catalogue[OperationId]["files"] = entry.files;
  return { ...entry.runner.engine, manyInputs: files.max > 1 || "named" in files };
}

/** The sandbox step a resident operation runs first (RunnerSpec's prepare), if it has one. */
export function prepareEngineOf(operation: ResidentOperation): SandboxEngine | undefined {
  const runner: RunnerSpec = catalogue[operation].runner;
  if (runner.runner !== "resident" || runner.prepare === undefined) return undefined;
  return { ...runner.prepare, manyInputs: true };
}

/** The resident engine a resident operation runs on. */
export function residentEngineOf(operation: ResidentOperation): ResidentEngine {
  return catalogue[operation].runner.engine;
}

/**
 * The engine modules a spare sandbox imports while it waits: those of the light operations among
 * `operations` that take a fresh process a job (or an account's first job), whose jobs take milliseconds,
 * so that importing the module (Sign PDF's, 0.13 s) would otherwise be most of one; and the resident
 * operations' prepare steps, which always take a fresh process (Generate's templating, whose import takes
 * 0.11 s). The heavy sandboxed operations' imports are small beside their seconds.
 */
export function sparePreloads(operations: readonly OperationId[]): string[] {
  const modules = operations.flatMap((operation) => {
    const entry: Catalogue[OperationId] = catalogue[operation];
    const runner: RunnerSpec = entry.runner;
    if (runner.runner === "resident") return runner.prepare ? [runner.prepare.module] : [];
    return runner.reuse !== "shared" && entry.lane === "light" ? [runner.engine.module] : [];
  });
  return [...new Set(modules)];
}
