import {
  AuthenticationError,
  ConnectionError,
  JobFailedError,
  OctavoError,
  WaitTimeoutError,
} from "@octavo/client";
import { UsageError } from "./usage-error.js";

/** The process's exit status; README.md has the table. Larger is worse, so a batch exits with its maximum. */
export const ExitCode = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  refused: 3,
  authentication: 4,
  unavailable: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The statuses of an answer that refuses the request as sent (fixing the request helps, retrying does not). */
const refusedStatuses = new Set([400, 402, 403, 404, 409, 413]);

/** The exit code an error ends the run with. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.usage;
  if (error instanceof JobFailedError) return ExitCode.jobFailed;
  if (error instanceof AuthenticationError) return ExitCode.authentication;
  if (error instanceof ConnectionError || error instanceof WaitTimeoutError) return ExitCode.unavailable;
  if (error instanceof OctavoError && error.status !== undefined) {
    if (error.status === 401) return ExitCode.authentication;
    if (refusedStatuses.has(error.status)) return ExitCode.refused;
    // 429 after the SDK's retries, 503, and any other 5xx: the service cannot take the request now.
    if (error.status === 429 || error.status >= 500) return ExitCode.unavailable;
    return ExitCode.refused;
  }
  // Anything else (an output that could not be written, an unexpected answer) fails the run.
  return ExitCode.jobFailed;
}

/** A batch's exit code: the worst of its jobs'. */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  const worst = Math.max(ExitCode.ok, ...codes);
  return Object.values(ExitCode).find((code) => code === worst) ?? ExitCode.ok;
}
