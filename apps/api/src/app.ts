import { serviceLimits } from "@octavo/contracts";
import express, { type Express } from "express";
import type { ApiContext } from "./context.js";
import { authenticate } from "./middleware/authenticate.js";
import { bodyIdleCutOff } from "./middleware/body-idle.js";
import { errorHandler, notFoundHandler } from "./middleware/errors.js";
import { httpMetrics } from "./middleware/http-metrics.js";
import { httpTracing } from "./middleware/http-tracing.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { requestId } from "./middleware/request-id.js";
import { accountRouter } from "./routes/account.js";
import { docsRouter } from "./routes/docs.js";
import { filesRouter } from "./routes/files.js";
import { healthRouter } from "./routes/health.js";
import { jobActionsRouter } from "./routes/job-actions.js";
import { jobsRouter } from "./routes/jobs.js";
import { methodNotAllowedRouter } from "./routes/method-not-allowed.js";
import { metricsRouter } from "./routes/metrics.js";
import { operationsRouter } from "./routes/operations.js";

/** The middleware order, top to bottom, is the request's path through the API. */
export function createApp(ctx: ApiContext): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  // Behind a load balancer the client's address comes from X-Forwarded-For (the dashboard's sign-in
  // throttle keys on it); only as many hops as the operator says are trusted.
  app.set("trust proxy", ctx.config.trustProxyHops);
  app.use(httpTracing());
  app.use(requestId);
  app.use(bodyIdleCutOff(ctx.config.requestIdleSeconds));
  app.use(httpMetrics(ctx.metrics));
  // Only when the operator put the metrics on the API's own port (OCTAVO_METRICS_PORT = OCTAVO_PORT).
  if (ctx.config.metricsPort === ctx.config.port) app.use(metricsRouter(ctx.metrics));
  app.use(methodNotAllowedRouter());

  // Public: probes, the API reference, the signed download links and the dashboard.
  app.use(healthRouter(ctx));
  app.use(docsRouter(ctx));
  app.use(filesRouter(ctx));
  // The dashboard acts through its own session cookie, never an API key.
  if (ctx.dashboard) app.use("/dashboard", ctx.dashboard);

  // Everything else under /v1 needs an API key.
  app.use("/v1", authenticate(ctx), rateLimit(ctx.rateLimiter));
  app.use(express.json({ limit: serviceLimits.maxFieldBytes, type: "application/json" }));
  app.use(operationsRouter(ctx));
  app.use(jobsRouter(ctx));
  app.use(jobActionsRouter(ctx));
  app.use(accountRouter(ctx));

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return app;
}
