import { contextFrom, failSpan, inSpan, SpanKind } from "@octavo/telemetry";
import type { RequestHandler } from "express";
import { routeTemplate } from "./http-metrics.js";

/**
 * Each request as a server span named by its method and route template ("POST /v1/merge"), continuing the
 * caller's trace when the request carries a W3C `traceparent`. Its attributes name no path, query string or
 * header beyond the route, so no id, signed link or key is ever exported. Everything the request does
 * (the job's acceptance, its queue message) runs in this span.
 */
export function httpTracing(): RequestHandler {
  return (req, res, next) => {
    void inSpan(
      req.method,
      { "http.request.method": req.method, "url.scheme": req.protocol },
      (span) =>
        new Promise<void>((resolve) => {
          let ended = false;
          const end = () => {
            if (ended) return;
            ended = true;
            const route = routeTemplate(req);
            span.updateName(`${req.method} ${route}`);
            span.setAttribute("http.route", route);
            span.setAttribute("http.response.status_code", res.statusCode);
            if (res.statusCode >= 500) failSpan(span, String(res.statusCode));
            resolve();
          };
          // finish: the answer was sent; close without it: the client went away first.
          res.once("finish", end);
          res.once("close", end);
          next();
        }),
      { parent: contextFrom(req.headers), kind: SpanKind.SERVER },
    );
  };
}
