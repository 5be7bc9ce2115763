import { ApiError, type PlanId } from "@octavo/contracts";
import { isPlanId, type JobOwner } from "@octavo/core";
import type { RequestHandler } from "express";
import type { ApiContext } from "../context.js";

/** `Authorization: Bearer svc_live_...` (or `svc_test_...`) on every /v1 route but the signed download links. */
export function authenticate(ctx: ApiContext): RequestHandler {
  return async (req, res, next) => {
    const header = req.get("authorization");
    if (!header || header.trim() === "") {
      throw new ApiError(
        "missing_api_key",
        "No API key was sent.",
        "Send the header Authorization: Bearer <your API key>.",
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      throw new ApiError(
        "invalid_api_key",
        "The Authorization header is malformed.",
        "Use the form Authorization: Bearer <your API key>.",
      );
    }
    const result = await ctx.accounts.authenticate(match[1]);
    if (!result.ok) {
      const detail =
        result.reason === "revoked"
          ? "This key was revoked; create a new one in the dashboard."
          : "Keys look like svc_live_ (or svc_test_) followed by 43 letters and digits; check that it was copied whole.";
      throw new ApiError("invalid_api_key", "The API key is not valid.", detail);
    }
    const account = await ctx.accounts.requireAccount(result.accountId);
    if (!isPlanId(account.plan)) throw new Error(`account ${account.id} has an unknown plan ${account.plan}`);
    res.locals.accountId = result.accountId;
    res.locals.keyId = result.keyId;
    res.locals.mode = result.mode;
    res.locals.plan = account.plan;
    next();
  };
}

export function accountIdOf(locals: Record<string, unknown>): string {
  const accountId = locals.accountId;
  if (typeof accountId !== "string") throw new Error("route used without the authenticate middleware");
  return accountId;
}

/** Whose jobs the request may see and make: its account's, of its key's mode. */
export function ownerOf(locals: Record<string, unknown>): JobOwner {
  const mode = locals.mode;
  if (mode !== "live" && mode !== "test") throw new Error("route used without the authenticate middleware");
  return { accountId: accountIdOf(locals), mode };
}

export function planOf(locals: Record<string, unknown>): PlanId {
  const plan = locals.plan;
  if (typeof plan !== "string" || !isPlanId(plan))
    throw new Error("route used without the authenticate middleware");
  return plan;
}
