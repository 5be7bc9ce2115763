import { getOperation, type OperationId } from "@octavo/contracts";
import { type JobService, newId, type StartedJob } from "../src/index.js";

/** A Business account's job of `operation` with one stored input, accepted at `createdAt`; its id. */
export async function acceptJob(
  jobs: JobService,
  accountId: string,
  operation: OperationId,
  createdAt: Date,
): Promise<string> {
  const id = newId();
  await jobs.accept(
    {
      id,
      accountId,
      mode: "live",
      plan: "business",
      operation,
      options: {},
      credits: getOperation(operation).credits,
      webhookUrl: undefined,
      inputs: [{ name: "a.pdf", size: 1, contentType: "application/pdf", storageKey: `jobs/${id}/in/0` }],
    },
    createdAt,
  );
  return id;
}

/** Starts the job (a worker's first step), which must start. */
export async function startedJob(
  jobs: JobService,
  id: string,
  operation: OperationId,
  now: Date,
): Promise<StartedJob> {
  const attempt = await jobs.start(id, operation, now);
  if (attempt.kind !== "started") throw new Error(`job ${id} did not start: ${attempt.kind}`);
  return attempt;
}
