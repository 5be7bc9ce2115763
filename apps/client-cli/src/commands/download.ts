import { createClient, pollSecondsFor } from "../client.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { reportDone, reportFailed, writeJobOutputs } from "../job-outputs.js";
import { NameAllocator } from "../output-plan.js";
import type { Reporter } from "../report.js";

/**
 * `octavo-client download <jobId>`: the outputs of a job, waited for when it has not ended yet (after
 * `--no-wait`); exit code 1 when it failed or its results have expired.
 */
export async function downloadJob(
  id: string,
  output: string | undefined,
  io: CliIo,
  reporter: Reporter,
): Promise<ExitCode> {
  const client = createClient(io);
  const first = await client.jobs.get(id);
  const job =
    first.status === "done" || first.status === "failed"
      ? first
      : await client.jobs.wait(id, { pollSeconds: pollSecondsFor(client) });
  if (job.status === "failed") {
    reportFailed(reporter, job, id);
    return ExitCode.jobFailed;
  }
  if ((job.outputs ?? []).some((file) => file.expired)) {
    reporter.alert(`${id}: the results of job ${id} have expired (they are kept one hour) or were deleted`);
    return ExitCode.jobFailed;
  }
  const { files, failure } = await writeJobOutputs(job, {
    output,
    cwd: io.cwd,
    names: new NameAllocator(),
    inputPaths: [],
    batch: false,
  });
  reportDone(reporter, job, files, io.cwd, id);
  if (failure === undefined) return ExitCode.ok;
  throw failure;
}
