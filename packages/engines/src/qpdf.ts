import { detailOf, JobFailure, stoppedFailure } from "./errors.js";
import { type RunSecrets, run } from "./run.js";

export interface QpdfOutcome {
  /** Exit 0, or 3 ("succeeded with warnings", which node-qpdf2 wrongly treats as failure). */
  ok: boolean;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** qpdf's WARNING lines, with file paths removed. */
  warnings: string[];
}

export interface QpdfOptions {
  signal?: AbortSignal | undefined;
  secrets?: RunSecrets;
}

/** Runs qpdf through run(); a timeout or abort becomes a JobFailure, everything else an outcome. */
export async function qpdf(args: string[], options: QpdfOptions = {}): Promise<QpdfOutcome> {
  const result = await run("qpdf", args, {
    signal: options.signal,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });
  if (result.aborted) throw stoppedFailure(options.signal?.reason);
  if (result.timedOut) {
    throw new JobFailure("timeout", "qpdf took too long on this file and was stopped.", {
      detail: detailOf(result.stderr),
    });
  }
  return {
    ok: result.exitCode === 0 || result.exitCode === 3,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.signal ? `${result.stderr}\nqpdf ended by ${result.signal}` : result.stderr,
    warnings: warningLines(result.stderr, args),
  };
}

/** True when qpdf refused the file for want of a (correct) password. */
export function qpdfWantsPassword(outcome: QpdfOutcome): boolean {
  return !outcome.ok && /invalid password/i.test(outcome.stderr);
}

/** Page count as qpdf reads it (the root /Count, which a hostile file can inflate). */
export async function qpdfPageCount(
  path: string,
  options: QpdfOptions = {},
): Promise<QpdfOutcome & { pages?: number }> {
  const outcome = await qpdf(["--show-npages", path], options);
  const pages = Number.parseInt(outcome.stdout.trim(), 10);
  return outcome.ok && Number.isFinite(pages) ? { ...outcome, pages } : outcome;
}

export async function qpdfIsEncrypted(path: string, options: QpdfOptions = {}): Promise<boolean> {
  const outcome = await qpdf(["--is-encrypted", path], options);
  return outcome.exitCode === 0;
}

/** `qpdf --check` passes with exit 0 or 3. */
export async function qpdfCheck(path: string, options: QpdfOptions = {}): Promise<QpdfOutcome> {
  return qpdf(["--check", path], options);
}

function warningLines(stderr: string, args: string[]): string[] {
  const paths = args.filter((arg) => arg.startsWith("/"));
  const lines = stderr
    .split("\n")
    .filter((line) => line.startsWith("WARNING: "))
    .map((line) => {
      let text = line.slice("WARNING: ".length);
      for (const path of paths) text = text.replaceAll(`${path}: `, "").replaceAll(`${path} `, "");
      // "(offset 455): xref not found" reads better as "offset 455: xref not found".
      return text.replace(/^\((.*?)\): /, "$1: ").trim();
    });
  return [...new Set(lines)];
}
