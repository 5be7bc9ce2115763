export type { DashboardContext } from "./context.js";
export { dashboardRouter } from "./router.js";
