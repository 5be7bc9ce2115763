export { createApp } from "./app.js";
export type { ApiContext, Outbound, ReadinessCheck } from "./context.js";
export { PlanRateLimiter } from "./middleware/rate-limit.js";
export { createHealthApp } from "./routes/health.js";
export { createMetricsApp } from "./routes/metrics.js";
export { InputSession } from "./uploads/input-session.js";
export { createOutbound } from "./uploads/outbound.js";
