import type { OperationId } from "@octavo/contracts";
import { type JobService, newId } from "../src/index.js";

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
      plan: "business",
      operation,
      options: {},
      webhookUrl: undefined,
      inputs: [{ name: "a.pdf", size: 1, contentType: "application/pdf", storageKey: `jobs/${id}/in/0` }],
    },
    createdAt,
  );
  return id;
}
