import type { ServiceMetrics } from "@octavo/metrics";
import express, { type Express, Router } from "express";

/** GET /metrics: the process's Prometheus exposition. */
export function metricsRouter(metrics: ServiceMetrics): Router {
  const router = Router();
  router.get("/metrics", async (_req, res) => {
    const { contentType, body } = await metrics.exposition();
    res.type(contentType).send(body);
  });
  return router;
}

/** /metrics alone, for a listener of its own (OCTAVO_METRICS_PORT): never behind the public one. */
export function createMetricsApp(metrics: ServiceMetrics): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(metricsRouter(metrics));
  return app;
}
