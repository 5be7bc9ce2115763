import { createHmac } from "node:crypto";
import { doubleCsrf } from "csrf-csrf";
import type { Request, RequestHandler, Response } from "express";
import type { DashboardContext } from "./context.js";
import { BASE, SESSION_COOKIE } from "./session.js";

/**
 * CSRF protection on every form (csrf-csrf's signed double-submit cookie): the token is an HMAC
 * bound to the session cookie, so a token from before sign-in, or from another session, is refused.
 */
export interface CsrfTokens {
  /** The token for this response's forms (sets its cookie when needed). */
  token(req: Request, res: Response): string;
}

export function csrfProtection(ctx: DashboardContext): CsrfTokens & { protect: RequestHandler } {
  const secret = createHmac("sha256", ctx.secretKey).update("octavo dashboard csrf").digest("hex");
  const { doubleCsrfProtection, generateCsrfToken } = doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (req) => String(req.cookies?.[SESSION_COOKIE] ?? ""),
    cookieName: "octavo_csrf",
    cookieOptions: {
      sameSite: "strict",
      path: BASE,
      secure: ctx.publicUrl.startsWith("https:"),
      httpOnly: true,
    },
    getCsrfTokenFromRequest: (req) => (typeof req.body?._csrf === "string" ? req.body._csrf : undefined),
  });
  return {
    protect: doubleCsrfProtection,
    token: (req: Request, res: Response) => generateCsrfToken(req, res),
  };
}
