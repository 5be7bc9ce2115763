import { WaitTimeoutError } from "./errors.js";
import type { Transport } from "./http.js";
import type { Job } from "./outputs.js";
import type { ApiJob, ListJobsParams } from "./types.js";

/** How `jobs.wait` and `run` wait for a job to end. */
export interface WaitOptions {
  /** Milliseconds to wait in all before `WaitTimeoutError`; 10 minutes by default. */
  timeout?: number;
  /** Called with the job after every poll, e.g. to show `progress`. */
  onProgress?: (job: Job) => void;
  /** Seconds each long poll may hold the answer (1–60, default 20): lower means more `onProgress` calls. */
  pollSeconds?: number;
  signal?: AbortSignal;
}

/** A page of `jobs.list`. */
export interface JobPage {
  data: Job[];
  hasMore: boolean;
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

const MAX_WAIT_SECONDS = 60;

/** The jobs of the account: read, wait for, list, cancel and delete. */
export class Jobs {
  constructor(
    private readonly transport: Transport,
    private readonly toJob: (job: ApiJob) => Job,
  ) {}

  /** The job as it is now; outputs have fresh download links. */
  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<Job> {
    return this.toJob(
      await this.transport.json<ApiJob>({ method: "GET", path: jobPath(id), signal: options.signal }),
    );
  }

  /**
   * Waits until the job is `done` or `failed` and returns it, holding each request open on the server
   * (a long poll) rather than polling in a loop. A failed job is returned, not thrown: see its `error`.
   *
   * @example
   * const job = await client.jobs.wait(id, { onProgress: (job) => console.log(job.progress) });
   * if (job.status === "failed") console.error(job.error, job.message);
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    const deadline = Date.now() + (options.timeout ?? 600_000);
    const pollSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.round(options.pollSeconds ?? 20)));
    for (;;) {
      const wait = Math.max(0, Math.min(pollSeconds, Math.ceil((deadline - Date.now()) / 1000)));
      const job = await this.transport.json<ApiJob>({
        method: "GET",
        path: jobPath(id),
        query: { wait },
        signal: options.signal,
        extraTimeout: wait * 1000,
      });
      const current = this.toJob(job);
      options.onProgress?.(current);
      if (job.status === "done" || job.status === "failed") return current;
      if (Date.now() >= deadline) throw new WaitTimeoutError(job);
    }
  }

  /** One page of the account's jobs, newest first. */
  async list(params: ListJobsParams = {}, options: { signal?: AbortSignal } = {}): Promise<JobPage> {
    const { includeOutputs, createdAfter, createdBefore, ...rest } = params;
    const page = await this.transport.json<{ data: ApiJob[]; hasMore: boolean; nextCursor: string | null }>({
      method: "GET",
      path: "/v1/jobs",
      query: {
        ...rest,
        createdAfter: createdAfter instanceof Date ? createdAfter.toISOString() : createdAfter,
        createdBefore: createdBefore instanceof Date ? createdBefore.toISOString() : createdBefore,
        include: includeOutputs ? "outputs" : undefined,
      },
      signal: options.signal,
    });
    return { ...page, data: page.data.map(this.toJob) };
  }

  /**
   * Every job matching `params`, page after page.
   *
   * @example
   * for await (const job of client.jobs.all({ status: "failed" })) console.log(job.id, job.error);
   */
  async *all(params: Omit<ListJobsParams, "cursor"> = {}): AsyncGenerator<Job> {
    let cursor: string | undefined;
    do {
      const page = await this.list(cursor === undefined ? params : { ...params, cursor });
      yield* page.data;
      cursor = page.hasMore && page.nextCursor !== null ? page.nextCursor : undefined;
    } while (cursor !== undefined);
  }

  /** Cancels a queued or running job: it ends `failed` with error `canceled` and is not charged. */
  async cancel(id: string): Promise<Job> {
    return this.toJob(await this.transport.json<ApiJob>({ method: "POST", path: `${jobPath(id)}/cancel` }));
  }

  /** Deletes a finished job's results now rather than after the hour. */
  async delete(id: string): Promise<void> {
    await this.transport.send({ method: "DELETE", path: jobPath(id) });
  }
}

function jobPath(id: string): string {
  return `/v1/jobs/${encodeURIComponent(id)}`;
}
