import type { OptionsOf } from "@octavo/contracts";
import {
  type EngineContext,
  type EngineInput,
  type EngineResult,
  JobFailure,
  merge,
  protect,
  repair,
  rotate,
  split,
  unlock,
} from "@octavo/engines";
import type { SandboxTask } from "./protocol.js";

function single(inputs: readonly EngineInput[]): EngineInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new Error(`expected exactly one input, got ${inputs.length}`);
  return input;
}

/** Operation id → engine call. Options were validated (and defaulted) by the API. */
export function dispatch(task: SandboxTask, ctx: EngineContext): Promise<EngineResult> {
  const { inputs, options } = task;
  switch (task.operation) {
    case "merge":
      return merge(inputs, ctx);
    case "split":
      return split(single(inputs), options as OptionsOf<"split">, ctx);
    case "rotate":
      return rotate(single(inputs), options as OptionsOf<"rotate">, ctx);
    case "protect":
      return protect(single(inputs), options as OptionsOf<"protect">, ctx);
    case "unlock":
      return unlock(single(inputs), options as OptionsOf<"unlock">, ctx);
    case "repair":
      return repair(single(inputs), ctx);
    default:
      throw new JobFailure("conversion_failed", `${task.operation} has no engine on this worker.`);
  }
}
