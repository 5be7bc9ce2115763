import { type CatalogueEntry, catalogue, type OperationClass } from "./catalogue.js";
import { type JobKind, operationIds, PIPELINE } from "./operation-ids.js";

/** The queue of the job-finished webhooks: deliveries, no engines. */
export const WEBHOOK_QUEUE = "webhooks";

/**
 * The worker classes: each is one container image with only its engines and runs `octavo worker
 * --class NAME`, which takes the class's queues. Operations name theirs in the catalogue; a pipeline,
 * whose steps may be any operations, has a class holding every engine; webhook deliveries have one
 * holding none. The Dockerfile's stages, the compose services, the Kubernetes Deployments and their
 * autoscalers are one per class, and say only its name.
 */
export const workerClasses = ["pdf", "heavy", "office", "pipeline", "webhooks"] as const satisfies readonly (
  | OperationClass
  | "pipeline"
  | "webhooks"
)[];

export type WorkerClass = (typeof workerClasses)[number];

/** A queue a worker of a class takes, with its count where the class sets one below the default. */
export interface ClassQueue {
  name: JobKind | typeof WEBHOOK_QUEUE;
  concurrency?: number;
}

/** Deliveries a webhooks worker makes at once: each is one POST of at most 10 s, mostly waiting. */
const WEBHOOK_DELIVERIES_PER_WORKER = 20;

export function isWorkerClass(value: string): value is WorkerClass {
  return (workerClasses as readonly string[]).includes(value);
}

/** The queues of a worker class, in the catalogue's order. */
export function queuesOfClass(workerClass: WorkerClass): ClassQueue[] {
  if (workerClass === "pipeline") return [{ name: PIPELINE }];
  if (workerClass === "webhooks")
    return [{ name: WEBHOOK_QUEUE, concurrency: WEBHOOK_DELIVERIES_PER_WORKER }];
  return operationIds
    .filter((id) => catalogue[id].workerClass === workerClass)
    .map((id) => {
      const entry: CatalogueEntry = catalogue[id];
      return entry.concurrency === undefined ? { name: id } : { name: id, concurrency: entry.concurrency };
    });
}

/** The class whose workers take a queue; undefined for a queue no class takes (housekeeping). */
export function workerClassOf(queue: string): WorkerClass | undefined {
  if (queue === PIPELINE) return "pipeline";
  if (queue === WEBHOOK_QUEUE) return "webhooks";
  return Object.hasOwn(catalogue, queue) ? catalogue[queue as keyof typeof catalogue].workerClass : undefined;
}
