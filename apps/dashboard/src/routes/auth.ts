import { durationInWords } from "@octavo/contracts";
import { MIN_PASSWORD_LENGTH, SignInError, SignUpError } from "@octavo/core";
import { type Request, Router } from "express";
import type { DashboardContext } from "../context.js";
import type { CsrfTokens } from "../csrf.js";
import { sendPage } from "../render.js";
import { BASE, endSession, sessionToken, startSession } from "../session.js";
import type { SignInThrottle } from "../throttle.js";
import { SignInPage, SignUpPage } from "../views/auth.js";

const field = (req: Request, name: string): string => {
  const value: unknown = req.body?.[name];
  return typeof value === "string" ? value : "";
};

/** Sign-up, sign-in and sign-out. Each success starts a brand-new session (no fixation). */
export function authRoutes(ctx: DashboardContext, csrf: CsrfTokens, throttle: SignInThrottle): Router {
  const router = Router();

  router.get("/signup", (req, res) => {
    sendPage(res, SignUpPage({ csrf: csrf.token(req, res), minLength: MIN_PASSWORD_LENGTH }));
  });

  router.post("/signup", async (req, res) => {
    const email = field(req, "email");
    try {
      const session = await ctx.auth.signUp(email, field(req, "password"));
      startSession(ctx, res, session);
      res.redirect(303, `${BASE}/keys?welcome=1`);
    } catch (error) {
      if (!(error instanceof SignUpError)) throw error;
      const page = SignUpPage({
        csrf: csrf.token(req, res),
        email,
        errors: { [error.field]: error.message },
        minLength: MIN_PASSWORD_LENGTH,
      });
      sendPage(res, page, 400);
    }
  });

  router.get("/signin", (req, res) => {
    const status = req.query.signedout === "1" ? "You are signed out." : undefined;
    sendPage(res, SignInPage({ csrf: csrf.token(req, res), ...(status ? { status } : {}) }));
  });

  router.post("/signin", async (req, res) => {
    const email = field(req, "email");
    const address = req.ip ?? "unknown";
    const again = (error: string, status: number) =>
      sendPage(res, SignInPage({ csrf: csrf.token(req, res), email, error }), status);
    const wait = await throttle.blockedFor(email, address);
    if (wait > 0) {
      res.setHeader("Retry-After", String(wait));
      return again(
        `Too many failed attempts. Try again in ${durationInWords(Math.ceil(wait / 60) * 60)}.`,
        429,
      );
    }
    try {
      const session = await ctx.auth.signIn(email, field(req, "password"));
      await throttle.recordSuccess(email, address);
      startSession(ctx, res, session);
      res.redirect(303, BASE);
    } catch (error) {
      if (!(error instanceof SignInError)) throw error;
      await throttle.recordFailure(email, address);
      again(error.message, 401);
    }
  });

  router.post("/signout", async (req, res) => {
    const token = sessionToken(req);
    if (token) await ctx.auth.signOut(token);
    endSession(ctx, res);
    res.redirect(303, `${BASE}/signin?signedout=1`);
  });

  return router;
}
