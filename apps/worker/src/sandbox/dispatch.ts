import { availableParallelism } from "node:os";
import type { OptionsOf } from "@octavo/contracts";
import {
  type EngineContext,
  type EngineInput,
  type EngineResult,
  merge,
  protect,
  repair,
  rotate,
  split,
  unlock,
} from "@octavo/engines";
import type { SandboxedOperation } from "../operations.js";
import type { SandboxTask } from "./protocol.js";

export type DispatchResult = EngineResult & { report?: Record<string, unknown> };

type EngineCall<K extends SandboxedOperation> = (
  inputs: EngineInput[],
  options: OptionsOf<K>,
  ctx: EngineContext,
) => Promise<DispatchResult>;

function single(inputs: readonly EngineInput[]): EngineInput {
  const [input] = inputs;
  if (!input || inputs.length !== 1) throw new Error(`expected exactly one input, got ${inputs.length}`);
  return input;
}

/**
 * Operation id → engine call, for every operation that runs in a sandbox. The heavy operations' packages
 * are imported on their first job: a light sandbox never loads them, and keeps a small heap, which every
 * garbage collection has to walk.
 */
const engineCalls: { [K in SandboxedOperation]: EngineCall<K> } = {
  merge: (inputs, _options, ctx) => merge(inputs, ctx),
  split: (inputs, options, ctx) => split(single(inputs), options, ctx),
  rotate: (inputs, options, ctx) => rotate(single(inputs), options, ctx),
  protect: (inputs, options, ctx) => protect(single(inputs), options, ctx),
  unlock: (inputs, options, ctx) => unlock(single(inputs), options, ctx),
  repair: (inputs, _options, ctx) => repair(single(inputs), ctx),
  compress: async (inputs, options, ctx) => {
    const { compress } = await import("@octavo/compress");
    const result = await compress(single(inputs), options, ctx);
    return { ...result, report: { ...result.report } };
  },
  // OCR runs its pages in parallel within this worker's CPU share.
  ocr: async (inputs, options, ctx) =>
    (await import("@octavo/ocr")).ocr(single(inputs), options, { ...ctx, cpus: availableParallelism() }),
  "pdf-to-pdfa": async (inputs, options, ctx) =>
    (await import("@octavo/pdfa")).toPdfA(single(inputs), options, ctx),
  "pdf-to-word": async (inputs, _options, ctx) =>
    (await import("@octavo/pdf-office")).pdfToWord(single(inputs), {}, ctx),
  "pdf-to-powerpoint": async (inputs, _options, ctx) =>
    (await import("@octavo/pdf-office")).pdfToPowerPoint(single(inputs), {}, ctx),
  "pdf-to-excel": async (inputs, options, ctx) =>
    (await import("@octavo/pdf-office")).pdfToExcel(single(inputs), options, ctx),
  watermark: async (inputs, options, ctx) =>
    (await import("@octavo/edit")).watermark(single(inputs), options, ctx),
  "page-numbers": async (inputs, options, ctx) =>
    (await import("@octavo/edit")).pageNumbers(single(inputs), options, ctx),
  flatten: async (inputs, options, ctx) =>
    (await import("@octavo/edit")).flatten(single(inputs), options, ctx),
  metadata: async (inputs, options, ctx) =>
    (await import("@octavo/edit")).metadata(single(inputs), options, ctx),
  "pdf-to-image": async (inputs, options, ctx) =>
    (await import("@octavo/images")).pdfToImage(single(inputs), options, ctx),
  "image-to-pdf": async (inputs, options, ctx) =>
    (await import("@octavo/images")).imageToPdf(inputs, options, ctx),
};

/** Runs the task's engine. */
export function dispatch(task: SandboxTask, ctx: EngineContext): Promise<DispatchResult> {
  return callEngine(task, ctx);
}

function callEngine<K extends SandboxedOperation>(
  task: { operation: K; options: OptionsOf<K>; inputs: EngineInput[] },
  ctx: EngineContext,
): Promise<DispatchResult> {
  const call: EngineCall<K> = engineCalls[task.operation];
  return call(task.inputs, task.options, ctx);
}
