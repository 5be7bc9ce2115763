export {
  type EngineStarts,
  type FinishedJob,
  type QueueDepth,
  type QueueDepthSource,
  ServiceMetrics,
  type WebhookOutcome,
} from "./service-metrics.js";
