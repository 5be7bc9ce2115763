export { createApp } from "./app.js";
export type { ApiContext, ReadinessCheck } from "./context.js";
