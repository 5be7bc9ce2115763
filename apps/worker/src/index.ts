export type { WorkerContext } from "./context.js";
export { runJanitor } from "./janitor.js";
export { killProcessTree } from "./process-tree.js";
export {
  installedOperations,
  operationPrograms,
  programInstalled,
} from "./resident/availability.js";
export { runJob } from "./run-job.js";
export {
  type QueueName,
  type QueueSpec,
  type RunningWorkers,
  startWorkers,
  type WorkerOptions,
} from "./workers.js";
