import { rm } from "node:fs/promises";
import { asJobFailure, JobFailure, stoppedFailure } from "./errors.js";
import type { EngineContext } from "./types.js";
import { freshDir } from "./workspace.js";

/**
 * Runs an operation body with a scratch directory that is removed afterwards, and turns whatever it throws
 * into a JobFailure, so no engine error reaches the caller raw.
 */
export async function runOperation<T>(
  ctx: EngineContext,
  fileName: string,
  body: (scratchDir: string) => Promise<T>,
): Promise<T> {
  let scratchDir: string | undefined;
  try {
    ctx.signal?.throwIfAborted();
    scratchDir = await freshDir(ctx.workDir, ".scratch");
    const result = await body(scratchDir);
    ctx.onProgress?.(1);
    return result;
  } catch (error) {
    if (ctx.signal?.aborted && !(error instanceof JobFailure)) throw stoppedFailure(ctx.signal.reason);
    throw asJobFailure(error, fileName);
  } finally {
    if (scratchDir !== undefined) await rm(scratchDir, { recursive: true, force: true });
  }
}

/** Reports progress, clamped to 0..1. */
export function reportProgress(ctx: EngineContext, fraction: number): void {
  ctx.onProgress?.(Math.min(1, Math.max(0, fraction)));
}

/** An output check failed: the engine wrote something we will not hand to the client. */
export function badOutput(fileName: string, what: string, detail?: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `The result for ${fileName} did not pass its check (${what}), so it was not delivered. Try the repair operation on the file first.`,
    { detail },
  );
}
