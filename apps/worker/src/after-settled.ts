import { followJobEnd, type Settled } from "@octavo/core";
import { publishJobEnd } from "@octavo/queue";
import type { WorkerContext } from "./context.js";

/** What follows a job's settlement on a worker: @octavo/core's followJobEnd, with the worker's parts. */
export function afterSettled(ctx: WorkerContext, settled: Settled | undefined): Promise<void> {
  return followJobEnd(
    {
      metrics: ctx.metrics,
      logger: ctx.logger,
      publishEnd: (jobId, deliveryId) => publishJobEnd(ctx.producer, jobId, deliveryId),
    },
    settled,
  );
}
