import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "@octavo/contracts";
import express, { Router } from "express";
import type { ApiContext } from "../context.js";

const staticDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "static");
const swaggerUiDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** OpenAPI 3.1 built from the same schemas ajv validates with, and Swagger UI from npm at /docs. */
export function docsRouter(ctx: ApiContext): Router {
  const router = Router();
  const document = buildOpenApiDocument({ serverUrl: ctx.config.publicUrl });
  router.get("/v1/openapi.json", (_req, res) => {
    res.json(document);
  });
  router.get("/docs", (_req, res) => {
    res.setHeader(
      "Content-Security-Policy",
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    );
    res.sendFile(join(staticDir, "docs.html"));
  });
  router.get("/docs/init.js", (_req, res) => {
    res.sendFile(join(staticDir, "docs-init.js"));
  });
  router.use("/docs/assets", express.static(swaggerUiDir, { index: false, fallthrough: false }));
  return router;
}
