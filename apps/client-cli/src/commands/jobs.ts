import type { Job, ListJobsParams } from "@octavo/client";
import { createClient, pollSecondsFor } from "../client.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { reportFailed } from "../job-outputs.js";
import { createProgressDisplay, progressEnabled } from "../progress.js";
import type { Reporter } from "../report.js";

/** A job in text mode: its JSON, indented (every field the API gave; outputs without their methods). */
function printJob(reporter: Reporter, job: Job): void {
  if (reporter.json) reporter.jsonLine(job);
  else reporter.result(JSON.stringify(job, null, 2));
}

export async function getJob(id: string, io: CliIo, reporter: Reporter): Promise<ExitCode> {
  printJob(reporter, await createClient(io).jobs.get(id));
  return ExitCode.ok;
}

/** Waits for a job to end, with a progress bar on a terminal; exit code 1 when it failed. */
export async function waitForJob(
  id: string,
  timeoutMs: number | undefined,
  io: CliIo,
  reporter: Reporter,
): Promise<ExitCode> {
  const client = createClient(io);
  const display = createProgressDisplay(io.stderr, progressEnabled(io.stderr, reporter), 1);
  const progress = display.track(id);
  try {
    // One read first: it tells the plan's rate limit, which sets how often the wait may poll.
    const first = await client.jobs.get(id);
    const job =
      first.status === "done" || first.status === "failed"
        ? first
        : await client.jobs.wait(id, {
            pollSeconds: pollSecondsFor(client),
            onProgress: (current) => progress.running(current.status, current.progress),
            ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
          });
    progress.finish(job.status);
    display.stop();
    if (job.status === "failed") {
      reportFailed(reporter, job, id);
      return ExitCode.jobFailed;
    }
    printJob(reporter, job);
    return ExitCode.ok;
  } finally {
    display.stop();
  }
}

export async function cancelJob(id: string, io: CliIo, reporter: Reporter): Promise<ExitCode> {
  printJob(reporter, await createClient(io).jobs.cancel(id));
  return ExitCode.ok;
}

export async function deleteJob(id: string, io: CliIo, reporter: Reporter): Promise<ExitCode> {
  await createClient(io).jobs.delete(id);
  if (reporter.json) reporter.jsonLine({ id, deleted: true });
  else reporter.result(`deleted the results of job ${id}`);
  return ExitCode.ok;
}

/** One page of jobs: a table in text mode (the next page's cursor on stderr), the page's JSON with --json. */
export async function listJobs(params: ListJobsParams, io: CliIo, reporter: Reporter): Promise<ExitCode> {
  const page = await createClient(io).jobs.list(params);
  if (reporter.json) {
    reporter.jsonLine(page);
    return ExitCode.ok;
  }
  for (const job of page.data) {
    const progress = job.status === "active" ? ` ${Math.round(job.progress * 100)}%` : "";
    const error = job.error === undefined ? "" : ` ${job.error}`;
    reporter.result(`${job.id}\t${job.operation}\t${job.status}${progress}${error}\t${job.createdAt}`);
  }
  if (page.hasMore && page.nextCursor !== null) reporter.notice(`more jobs: add --cursor ${page.nextCursor}`);
  return ExitCode.ok;
}
