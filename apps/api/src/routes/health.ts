import type { ServiceMetrics } from "@octavo/metrics";
import express, { type Express, Router } from "express";
import type { ReadinessCheck } from "../context.js";
import { requestId } from "../middleware/request-id.js";
import { metricsRouter } from "./metrics.js";

const CHECK_DEADLINE_MS = 3_000;

async function runCheck({ name, check }: ReadinessCheck): Promise<{ name: string; problem?: string }> {
  try {
    await Promise.race([
      check(),
      new Promise((_resolve, reject) =>
        setTimeout(() => reject(new Error("no answer within 3 s")), CHECK_DEADLINE_MS).unref(),
      ),
    ]);
    return { name };
  } catch (error) {
    return { name, problem: error instanceof Error ? error.message : String(error) };
  }
}

export interface HealthProbes {
  readinessChecks: readonly ReadinessCheck[];
  /** Liveness beyond "the process answers", e.g. a worker whose queue consumers all stopped. */
  isAlive?: () => boolean;
}

export function healthRouter({ readinessChecks, isAlive = () => true }: HealthProbes): Router {
  const router = Router();
  // Liveness: the process answers. Nothing external is checked, so a database outage does not
  // make an orchestrator restart every node.
  router.get("/healthz", (_req, res) => {
    if (isAlive()) res.json({ status: "ok" });
    else {
      res
        .status(503)
        .json({ error: "unavailable", message: "The process stopped working; restart it.", detail: "" });
    }
  });
  // Readiness: every required dependency answers within a deadline. Advisory checks are reported
  // but do not fail it: a worker class scaled to zero must not take every API node out of rotation.
  router.get("/readyz", async (_req, res) => {
    const results = await Promise.all(readinessChecks.map(runCheck));
    const checks = Object.fromEntries(results.map((result) => [result.name, result.problem ?? "ok"]));
    const ready = results.every(
      (result, index) => result.problem === undefined || readinessChecks[index]?.advisory,
    );
    if (ready) {
      res.json({ status: "ready", checks });
    } else {
      res
        .status(503)
        .json({ error: "unavailable", message: "The service is not ready.", detail: JSON.stringify(checks) });
    }
  });
  return router;
}

/**
 * /healthz, /readyz and /metrics, for processes without the API (`octavo worker` with
 * OCTAVO_HEALTH_PORT): the port the orchestrator probes is the one Prometheus scrapes.
 */
export function createHealthApp(probes: HealthProbes, metrics: ServiceMetrics): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestId);
  app.use(healthRouter(probes));
  app.use(metricsRouter(metrics));
  return app;
}
