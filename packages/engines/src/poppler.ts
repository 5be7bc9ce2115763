import { stoppedFailure } from "./errors.js";
import { run } from "./run.js";

/** Page count as poppler reads it: a third, independent parser for repaired files. */
export async function popplerPages(path: string, signal?: AbortSignal): Promise<number | undefined> {
  const result = await run("pdfinfo", [path], { signal, timeoutMs: 60_000 });
  if (result.aborted) throw stoppedFailure(signal?.reason);
  if (result.exitCode !== 0) return undefined;
  const match = /^Pages:\s+(\d+)\s*$/m.exec(result.stdout);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
