export type { WorkerContext } from "./context.js";
export { runJanitor } from "./janitor.js";
export { killProcessTree } from "./process-tree.js";
export { runJob } from "./run-job.js";
export { type RunningWorkers, startWorkers } from "./workers.js";
