import { ApiError } from "@octavo/contracts";
import type { JobFileRow, JobRow } from "@octavo/db";
import type { JobOwner } from "@octavo/db/repositories";
import { followJobEnd, type JobEndPorts } from "./job-end.js";
import type { JobService } from "./jobs.js";

/** What the job actions need beyond the jobs: what follows a job's end, and the stored objects. */
export interface JobActionPorts extends JobEndPorts {
  /** Deletes one stored object (an input or an output); its row is marked deleted afterwards. */
  deleteObject(storageKey: string): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The rules of a caller's own job: reading it, canceling it and deleting its results. The routes parse
 * the request, call one of these and answer; the refusals are the spec's errors.
 */
export class JobActions {
  constructor(
    private readonly jobs: JobService,
    private readonly ports: JobActionPorts,
  ) {}

  /**
   * The caller's job; an unknown id, a malformed one, another account's job and a job of the other mode
   * (a test key's, to a live key) all answer 404 alike.
   */
  async own(owner: JobOwner, jobId: string): Promise<JobRow> {
    const job = UUID.test(jobId) ? await this.jobs.findForAccount(jobId.toLowerCase(), owner) : undefined;
    if (!job) throw new ApiError("not_found", "There is no job with this id.", `job_id: ${jobId}`);
    return job;
  }

  /**
   * A queued or running job ends failed `canceled`, uncharged: its inputs are deleted, it leaves its
   * queue, its webhook goes out and a worker running it stops. A job that ended first (even by a hair)
   * keeps its outcome: 409 job_finished.
   */
  async cancel(owner: JobOwner, jobId: string): Promise<JobRow> {
    const cancellation = await this.jobs.cancel(await this.own(owner, jobId));
    if (cancellation.kind === "finished") {
      throw new ApiError(
        "job_finished",
        "The job has already ended and cannot be canceled.",
        `status: ${cancellation.job.status}`,
      );
    }
    await this.deleteStored(cancellation.inputs);
    await followJobEnd(this.ports, cancellation.settled);
    return cancellation.settled.job;
  }

  /**
   * A finished job's results go at once instead of after the hour; the job stays, for its status and
   * its credits. Deleting again does the same. A job still queued or running: 409 job_not_finished.
   */
  async deleteResults(owner: JobOwner, jobId: string): Promise<void> {
    const job = await this.own(owner, jobId);
    const stored = await this.jobs.deleteResults(job);
    if (stored === undefined) {
      throw new ApiError(
        "job_not_finished",
        "The job has not finished; its results can be deleted once it has.",
        `status: ${job.status}. Cancel it with POST /v1/jobs/${job.id}/cancel, or wait for it to end.`,
      );
    }
    await this.deleteStored(stored);
  }

  /** Deletes the files' stored objects, then records them deleted. */
  private async deleteStored(files: readonly JobFileRow[]): Promise<void> {
    await Promise.all(files.map((file) => this.ports.deleteObject(file.storage_key)));
    await this.jobs.filesDeleted(files);
  }
}
