import type { CookieOptions, Request, RequestHandler, Response } from "express";
import type { Customer, DashboardContext } from "./context.js";

export const SESSION_COOKIE = "octavo_session";
export const BASE = "/dashboard";

/** HttpOnly and SameSite=Lax always; Secure whenever the dashboard is served over HTTPS. */
export function cookieOptions(ctx: DashboardContext): CookieOptions {
  return { httpOnly: true, sameSite: "lax", secure: ctx.publicUrl.startsWith("https:"), path: BASE };
}

export function sessionToken(req: Request): string | undefined {
  const token: unknown = req.cookies?.[SESSION_COOKIE];
  return typeof token === "string" && token !== "" ? token : undefined;
}

export function startSession(
  ctx: DashboardContext,
  res: Response,
  session: { token: string; expiresAt: string },
) {
  res.cookie(SESSION_COOKIE, session.token, { ...cookieOptions(ctx), expires: new Date(session.expiresAt) });
}

export function endSession(ctx: DashboardContext, res: Response): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(ctx));
}

/** The signed-in customer of each response being served (set by loadCustomer). */
const customers = new WeakMap<Response, Customer>();

/** Loads the customer of a valid session; pages that need one redirect to sign-in. */
export function loadCustomer(ctx: DashboardContext): RequestHandler {
  return async (req, res, next) => {
    const token = sessionToken(req);
    const session = token ? await ctx.auth.session(token) : undefined;
    if (session && token) {
      const customer: Customer = { accountId: session.accountId, email: session.email, plan: session.plan };
      customers.set(res, customer);
      // The session's expiry slid forward: the cookie follows it.
      if (session.renewed) startSession(ctx, res, { token, expiresAt: session.expiresAt });
    } else if (token) {
      endSession(ctx, res); // expired or signed out elsewhere
      delete req.cookies[SESSION_COOKIE]; // the CSRF token of this page binds to no session
    }
    next();
  };
}

export const requireCustomer: RequestHandler = (_req, res, next) => {
  if (customers.has(res)) next();
  else res.redirect(303, `${BASE}/signin`);
};

export function customerOf(res: Response): Customer {
  const customer = customers.get(res);
  if (!customer) throw new Error("a page that needs a customer was served without requireCustomer");
  return customer;
}
