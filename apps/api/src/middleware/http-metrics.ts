import type { ServiceMetrics } from "@octavo/metrics";
import type { Request, RequestHandler } from "express";

/**
 * The route a request matched, as its template (`/v1/jobs/:id`, never the id itself), so the label
 * stays bounded; a request no route took (404, 405, refused before routing such as a 401) is
 * "unmatched".
 */
export function routeTemplate(req: Request): string {
  const path: unknown = req.route?.path;
  return typeof path === "string" ? `${req.baseUrl}${path}` : "unmatched";
}

/** Times every answered request into the metrics, by route template, method and status. */
export function httpMetrics(metrics: ServiceMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest(routeTemplate(req), req.method, res.statusCode, seconds);
    });
    next();
  };
}
