import { JobFailure, run } from "@octavo/engines";

export interface ToolOutcome {
  ok: boolean;
  /** The call hit its own time limit (only reported, not thrown, for Ghostscript: its routes are optional). */
  timedOut: boolean;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Time and memory for one engine call. A 5-minute job runs a handful of these. */
export const toolLimits = {
  qpdfMs: 120_000,
  ghostscriptMs: 180_000,
  memoryBytes: 2 * 1024 ** 3,
} as const;

/**
 * The time limit of one Ghostscript rewrite: 20 s plus 0.5 s per page, at most `toolLimits.ghostscriptMs`.
 * pdfwrite without resampling measured 0.2–13 s on the bench files (up to 30 pages) and under 1 s on the
 * 429-page govdocs_error_set_2_027613; its legacy interpreter never finished (> 150 s) on
 * broken/qpdf_issue-202 (10 pages). A rewrite that runs over its limit only drops its route.
 */
export function ghostscriptLimitMs(pages: number): number {
  return Math.min(toolLimits.ghostscriptMs, 20_000 + 500 * Math.max(1, pages));
}

function aborted(signal: AbortSignal | undefined): JobFailure {
  return new JobFailure("timeout", "The job took too long and was stopped; try a smaller file.", {
    detail: String(signal?.reason ?? "aborted"),
  });
}

/** qpdf through run(); exit 3 ("succeeded with warnings") counts as success. */
export async function qpdf(args: string[], signal: AbortSignal | undefined): Promise<ToolOutcome> {
  const result = await run("qpdf", args, {
    signal,
    timeoutMs: toolLimits.qpdfMs,
    memoryBytes: toolLimits.memoryBytes,
  });
  if (result.aborted) throw aborted(signal);
  if (result.timedOut) {
    throw new JobFailure("timeout", "qpdf took too long on this file and was stopped; try a smaller file.", {
      detail: result.stderr.slice(0, 4000),
    });
  }
  return {
    ok: result.exitCode === 0 || result.exitCode === 3,
    timedOut: false,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/**
 * Ghostscript through run(), always with -dSAFER and in batch mode. An aborted job throws; running over
 * `timeoutMs` is returned as `timedOut` (not ok), for the caller to drop the route.
 */
export async function ghostscript(
  args: string[],
  options: { signal: AbortSignal | undefined; timeoutMs: number },
): Promise<ToolOutcome> {
  const result = await run("gs", ["-dSAFER", "-dNOPAUSE", "-dBATCH", "-dQUIET", ...args], {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    memoryBytes: toolLimits.memoryBytes,
  });
  if (result.aborted) throw aborted(options.signal);
  return {
    ok: result.exitCode === 0 && !result.timedOut,
    timedOut: result.timedOut,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}
