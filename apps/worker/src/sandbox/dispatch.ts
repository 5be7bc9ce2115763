import { availableParallelism } from "node:os";
import { compress } from "@octavo/compress";
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
import { ocr } from "@octavo/ocr";
import { pdfToExcel, pdfToPowerPoint, pdfToWord } from "@octavo/pdf-office";
import { toPdfA } from "@octavo/pdfa";
import type { SandboxTask } from "./protocol.js";

export type DispatchResult = EngineResult & { report?: Record<string, unknown> };

function single(inputs: readonly EngineInput[]): EngineInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new Error(`expected exactly one input, got ${inputs.length}`);
  return input;
}

/** Operation id → engine call. Options were validated (and defaulted) by the API. */
export async function dispatch(task: SandboxTask, ctx: EngineContext): Promise<DispatchResult> {
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
    case "compress": {
      const result = await compress(single(inputs), options as OptionsOf<"compress">, ctx);
      return { ...result, report: { ...result.report } };
    }
    case "ocr":
      // OCR runs its pages in parallel within this worker's CPU share.
      return ocr(single(inputs), options as OptionsOf<"ocr">, { ...ctx, cpus: availableParallelism() });
    case "pdf-to-pdfa":
      return toPdfA(single(inputs), options as OptionsOf<"pdf-to-pdfa">, ctx);
    case "pdf-to-word":
      return pdfToWord(single(inputs), {}, ctx);
    case "pdf-to-powerpoint":
      return pdfToPowerPoint(single(inputs), {}, ctx);
    case "pdf-to-excel":
      return pdfToExcel(single(inputs), options as OptionsOf<"pdf-to-excel">, ctx);
    default:
      throw new JobFailure("conversion_failed", `${task.operation} has no engine on this worker.`);
  }
}
