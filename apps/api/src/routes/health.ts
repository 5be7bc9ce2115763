import { Router } from "express";
import type { ApiContext } from "../context.js";

export function healthRouter(ctx: ApiContext): Router {
  const router = Router();
  // Liveness: the process answers. Nothing external is checked, so a database outage does not
  // make an orchestrator restart every API node.
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  // Readiness: every dependency answers within a deadline.
  router.get("/readyz", async (_req, res) => {
    const results = await Promise.all(
      ctx.readinessChecks.map(async ({ name, check }) => {
        try {
          await Promise.race([
            check(),
            new Promise((_resolve, reject) =>
              setTimeout(() => reject(new Error("no answer within 3 s")), 3_000).unref(),
            ),
          ]);
          return { name, ok: true as const };
        } catch (error) {
          return {
            name,
            ok: false as const,
            problem: error instanceof Error ? error.message : String(error),
          };
        }
      }),
    );
    const ready = results.every((result) => result.ok);
    const checks = Object.fromEntries(
      results.map((result) => [result.name, result.ok ? "ok" : result.problem]),
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
