import { Router } from "express";
import type { DashboardContext } from "../context.js";
import type { CsrfTokens } from "../csrf.js";
import { sendPage } from "../render.js";
import { BASE, customerOf } from "../session.js";
import { KeysPage, RevokeKeyPage } from "../views/keys.js";

const NOTICES: Record<string, string> = {
  welcome: "Welcome! Create your first API key to start calling the API.",
  revoked: "The key was revoked. Requests made with it are now refused.",
};

/** Create, list and revoke API keys; a customer only ever sees and touches their own. */
export function keyRoutes(ctx: DashboardContext, csrf: CsrfTokens): Router {
  const router = Router();
  const ownKey = async (accountId: string, keyId: string) =>
    (await ctx.accounts.listKeys(accountId)).find((key) => key.id === keyId && !key.revokedAt);

  router.get("/keys", async (req, res) => {
    const { accountId, email } = customerOf(res);
    const notice = Object.keys(NOTICES).find((name) => req.query[name] === "1");
    sendPage(
      res,
      KeysPage({
        csrf: csrf.token(req, res),
        email,
        keys: await ctx.accounts.listKeys(accountId),
        notice: notice ? NOTICES[notice] : undefined,
      }),
    );
  });

  // The new key is in this response's body only: never in a URL, a redirect or a log.
  router.post("/keys", async (req, res) => {
    const { accountId, email } = customerOf(res);
    const raw: unknown = req.body?.label;
    const label = typeof raw === "string" && raw.trim() !== "" ? raw.trim().slice(0, 100) : null;
    const mode = req.body?.mode === "test" ? "test" : "live";
    const created = await ctx.accounts.createKey(accountId, label, mode);
    const keys = await ctx.accounts.listKeys(accountId);
    sendPage(
      res,
      KeysPage({ csrf: csrf.token(req, res), email, keys, created: { apiKey: created.apiKey, label, mode } }),
      201,
    );
  });

  router.get("/keys/:keyId/revoke", async (req, res) => {
    const { accountId, email } = customerOf(res);
    const key = await ownKey(accountId, req.params.keyId);
    if (!key) return res.redirect(303, `${BASE}/keys`);
    sendPage(res, RevokeKeyPage({ csrf: csrf.token(req, res), email, key }));
  });

  router.post("/keys/:keyId/revoke", async (req, res) => {
    const { accountId } = customerOf(res);
    const key = await ownKey(accountId, req.params.keyId);
    if (key) await ctx.accounts.revokeKey(key.id);
    res.redirect(303, `${BASE}/keys?revoked=1`);
  });

  return router;
}
