import { ApiError, operations, PIPELINE_PATH } from "@octavo/contracts";
import { Router } from "express";

/**
 * Known paths with their methods; any other method on them gets 405 with an Allow header, before
 * authentication (the answer does not depend on who asks).
 */
const KNOWN_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ...operations.map((operation) => [operation.path, "POST"] as const),
  [PIPELINE_PATH, "POST"],
  ["/v1/jobs", "GET, HEAD"],
  ["/v1/jobs/:jobId", "GET, HEAD, DELETE"],
  ["/v1/jobs/:jobId/cancel", "POST"],
  ["/v1/account", "GET, HEAD"],
  ["/v1/files/:fileId/:name", "GET, HEAD"],
  ["/v1/openapi.json", "GET, HEAD"],
  ["/healthz", "GET, HEAD"],
  ["/readyz", "GET, HEAD"],
  ["/docs", "GET, HEAD"],
];

export function methodNotAllowedRouter(): Router {
  const router = Router();
  for (const [path, allow] of KNOWN_ROUTES) {
    router.all(path, (req, res, next) => {
      if (allow.split(", ").includes(req.method)) {
        next();
        return;
      }
      res.setHeader("Allow", allow);
      throw new ApiError(
        "method_not_allowed",
        `${req.method} is not allowed on ${req.path}.`,
        `Allowed: ${allow}.`,
      );
    });
  }
  return router;
}
