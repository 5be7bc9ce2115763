import type { Job, JobErrorCode, JobKind, JobStep, Output } from "@octavo/contracts";
import type { JobFileRow, JobRow } from "@octavo/db";
import type { DownloadLinks } from "./download-links.js";

/**
 * The public Job resource (GET /v1/jobs/{id}, the webhook body, the items of GET /v1/jobs), built from
 * the rows. `outputs` undefined: a done job is shown without them (a list not asked to include them).
 */
export async function jobView(
  job: JobRow,
  outputs: readonly JobFileRow[] | undefined,
  links: DownloadLinks,
  now: Date,
): Promise<Job> {
  const view: Job = {
    id: job.id,
    status: job.status,
    progress: job.status === "done" ? 1 : job.progress,
    operation: job.operation as JobKind,
    credits: job.credits,
    livemode: job.mode === "live",
    createdAt: job.created_at,
  };
  if (job.started_at) view.startedAt = job.started_at;
  if (job.finished_at) view.finishedAt = job.finished_at;
  if (job.status === "done") {
    if (outputs) {
      const deleted = job.results_deleted_at !== null;
      view.outputs = await Promise.all(outputs.map((output) => outputView(output, deleted, links, now)));
    }
    if (job.warnings) view.warnings = JSON.parse(job.warnings) as string[];
    if (job.report && job.operation === "compress")
      view.compression = JSON.parse(job.report) as NonNullable<Job["compression"]>;
    if (job.report && job.operation === "verify-signatures")
      view.verification = JSON.parse(job.report) as NonNullable<Job["verification"]>;
    if (job.report && job.operation === "forms-read")
      view.form = JSON.parse(job.report) as NonNullable<Job["form"]>;
    if (job.report && job.operation === "redact")
      view.redaction = JSON.parse(job.report) as NonNullable<Job["redaction"]>;
  }
  if (job.status === "failed") {
    view.error = (job.error_code ?? "conversion_failed") as JobErrorCode;
    view.message = job.error_message ?? "The job failed.";
  }
  if (job.steps) view.steps = stepsView(view, JSON.parse(job.steps) as JobStep[]);
  return view;
}

/**
 * A pipeline's steps as its worker left them (JSON it wrote as JobStep[]); on a job failed while a step
 * ran (the step's own failure, a cancel, the deadline), that step shows the job's failure.
 */
function stepsView(job: Job, steps: readonly JobStep[]): JobStep[] {
  const { error } = job;
  if (error === undefined) return [...steps];
  return steps.map((step) =>
    step.status === "active"
      ? { ...step, status: "failed", error, ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}) }
      : step,
  );
}

/** `deleted`: the owner deleted the job's results (DELETE /v1/jobs/{id}); they read as deleted, not expired. */
async function outputView(
  output: JobFileRow,
  deleted: boolean,
  links: DownloadLinks,
  now: Date,
): Promise<Output> {
  const base = { name: output.name, size: output.size, contentType: output.content_type };
  if (deleted) return { ...base, expired: true, deleted: true };
  if (output.deleted_at) return { ...base, expired: true };
  const link = await links.link(output, now);
  return { ...base, url: link.url, urlExpiresAt: link.expiresAt, expired: false };
}
