import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import cookieParser from "cookie-parser";
import express, { type ErrorRequestHandler, type Response, type Router } from "express";
import helmet from "helmet";
import type { DashboardContext } from "./context.js";
import { csrfProtection } from "./csrf.js";
import { sendPage } from "./render.js";
import { authRoutes } from "./routes/auth.js";
import { keyRoutes } from "./routes/keys.js";
import { pageRoutes } from "./routes/pages.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { loadCustomer, requireCustomer } from "./session.js";
import { SignInThrottle } from "./throttle.js";
import { ErrorPage } from "./views/error.js";

const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "static");

/**
 * The customer dashboard, mounted at /dashboard by the API: server-rendered pages acting through a
 * session cookie, never through an API key. Same origin as the API, its own strict headers.
 */
export function dashboardRouter(ctx: DashboardContext): Router {
  const router = express.Router();
  const csrf = csrfProtection(ctx);

  router.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
        },
      },
      frameguard: { action: "deny" },
      strictTransportSecurity: ctx.publicUrl.startsWith("https:"),
    }),
  );
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store"); // pages carry keys, secrets and account data
    next();
  });
  router.use("/static", express.static(STATIC_DIR, { index: false, fallthrough: false }));
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: "16kb" }));
  router.use(loadCustomer(ctx));
  router.use(csrf.protect);

  router.use(authRoutes(ctx, csrf, new SignInThrottle(ctx.redis, ctx.keyPrefix)));
  router.use(requireCustomer);
  router.use(pageRoutes(ctx, csrf));
  router.use(keyRoutes(ctx, csrf));
  router.use(webhookRoutes(ctx, csrf));
  router.use((_req, res) => notFound(res));
  router.use(errorPage(ctx));
  return router;
}

function notFound(res: Response): void {
  sendPage(res, ErrorPage({ csrf: "", title: "Page not found", message: "There is no such page." }), 404);
}

function errorPage(ctx: DashboardContext): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = typeof error === "object" && error !== null;
    if (known && "status" in error && error.status === 404) return notFound(res); // a missing static file
    if (known && "code" in error && error.code === "EBADCSRFTOKEN") {
      const message =
        "This form expired or came from another page. Go back, reload the page and send it again.";
      return sendPage(res, ErrorPage({ csrf: "", title: "Form expired", message }), 403);
    }
    ctx.logger.error({ err: error, path: req.path }, "dashboard error");
    sendPage(
      res,
      ErrorPage({
        csrf: "",
        title: "Something went wrong",
        message: "Something went wrong on our side. Try again.",
      }),
      500,
    );
  };
}
