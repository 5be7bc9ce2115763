import { isJobKind, type JobErrorCode, type JobKind, jobErrorCodes } from "@octavo/contracts";
import type { JobRow } from "@octavo/db";

/** An ended job as the metrics count it (@octavo/metrics' FinishedJob): times in seconds, when known. */
export interface EndedJobFacts {
  operation: JobKind;
  status: "done" | "failed";
  code: JobErrorCode | undefined;
  runSeconds: number | undefined;
  queueWaitSeconds: number | undefined;
}

/** Seconds between two of a job's ISO times, when both are known. */
function secondsBetween(from: string | null, to: string | null): number | undefined {
  return from && to ? Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000) : undefined;
}

/** The facts of an ended job; undefined for a job that has not ended. */
export function endedJobFacts(job: JobRow): EndedJobFacts | undefined {
  if (!isJobKind(job.operation) || (job.status !== "done" && job.status !== "failed")) return undefined;
  return {
    operation: job.operation,
    status: job.status,
    code: jobErrorCodes.find((code) => code === job.error_code),
    runSeconds: secondsBetween(job.started_at, job.finished_at),
    queueWaitSeconds: secondsBetween(job.created_at, job.started_at),
  };
}
