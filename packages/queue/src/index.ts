export { JobEndedListener } from "./job-ended.js";
export {
  assertQueueName,
  deliveryIdOf,
  type JobMessage,
  JobProducer,
  MAINTENANCE_QUEUE,
  WEBHOOK_QUEUE,
  type WebhookMessage,
} from "./queues.js";
export { createRedis, pingRedis, type RedisRole, waitUntilReady } from "./redis-connection.js";
export { type RedisServerLogger, type SupervisedRedis, startRedisServer } from "./redis-server.js";
export {
  enqueueWebhookDelivery,
  type JobEndFailure,
  publishJobEnd,
  WEBHOOK_JOB_OPTIONS,
  WEBHOOK_RETRY_DELAYS_MS,
  webhookBackoff,
} from "./webhook-deliveries.js";
