import { availableParallelism } from "node:os";
import type { EngineExport } from "@octavo/contracts";
import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import type { EngineTask, HelperTask, SandboxEngine } from "./protocol.js";

export type DispatchResult = EngineResult & { report?: Record<string, unknown> };

/** What a sandbox gives every engine besides the job's files and options. */
export type SandboxContext = EngineContext & {
  /** The operator's OCTAVO_URL_ALLOWLIST, for an engine that makes a request (Sign PDF's time-stamp). */
  urlAllowlist: string;
};

/** Every sandboxed engine: (input or inputs, options, context), as the catalogue's EngineExport says. */
type EngineFunction = (
  input: EngineInput | EngineInput[],
  options: object,
  ctx: SandboxContext & { cpus: number },
) => Promise<DispatchResult>;

function single(inputs: readonly EngineInput[]): EngineInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new Error(`expected exactly one input, got ${inputs.length}`);
  return input;
}

/**
 * The engine function a catalogue entry names, imported on the operation's first job: a light sandbox
 * never loads the heavy packages, and keeps a small heap, which every garbage collection has to walk.
 */
export async function engineFunction(engine: EngineExport): Promise<EngineFunction> {
  const module: Record<string, unknown> = await import(engine.module);
  const found = module[engine.export];
  if (typeof found !== "function") throw new Error(`${engine.module} exports no function ${engine.export}`);
  return found as EngineFunction;
}

/** Runs the task's engine, with one input or all of them as its operation takes. */
export async function dispatch(
  task: EngineTask | HelperTask,
  engine: SandboxEngine,
  ctx: SandboxContext,
): Promise<DispatchResult> {
  const run = await engineFunction(engine);
  const inputs = engine.manyInputs ? task.inputs : single(task.inputs);
  // OCR (and the OCR of scanned pages) runs its pages in parallel within this worker's CPU share.
  return run(inputs, task.options, { ...ctx, cpus: availableParallelism() });
}
