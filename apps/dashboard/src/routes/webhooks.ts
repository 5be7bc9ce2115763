import { plans } from "@octavo/contracts";
import { enqueueWebhookDelivery } from "@octavo/queue";
import { type Response, Router } from "express";
import type { DashboardContext } from "../context.js";
import type { CsrfTokens } from "../csrf.js";
import { sendPage } from "../render.js";
import { BASE, customerOf } from "../session.js";
import { RotateSecretPage, WebhooksPage } from "../views/webhooks.js";

const RECENT = 20;

/** The signing secret (revealed on request, rotated with a 24 h overlap) and the recent deliveries. */
export function webhookRoutes(ctx: DashboardContext, csrf: CsrfTokens): Router {
  const router = Router();

  const render = async (
    req: Parameters<CsrfTokens["token"]>[0],
    res: Response,
    extra: { secret?: { value: string; previousValidUntil?: string }; notice?: string } = {},
  ) => {
    const { accountId, email, plan } = customerOf(res);
    const deliveries = await ctx.deliveries.recent(accountId, RECENT);
    sendPage(
      res,
      WebhooksPage({
        csrf: csrf.token(req, res),
        email,
        webhooksInPlan: plans[plan].webhooks,
        deliveries,
        secret: extra.secret,
        notice: extra.notice,
      }),
    );
  };

  router.get("/webhooks", (req, res) =>
    render(req, res, req.query.resent === "1" ? { notice: "The delivery was queued again." } : {}),
  );

  router.post("/webhooks/reveal", async (req, res) => {
    const value = await ctx.accounts.webhookSecret(customerOf(res).accountId);
    await render(req, res, { secret: { value } });
  });

  router.get("/webhooks/rotate", (req, res) => {
    sendPage(res, RotateSecretPage({ csrf: csrf.token(req, res), email: customerOf(res).email }));
  });

  router.post("/webhooks/rotate", async (req, res) => {
    const rotated = await ctx.accounts.rotateWebhookSecret(customerOf(res).accountId);
    await render(req, res, {
      secret: { value: rotated.webhookSecret, previousValidUntil: rotated.previousValidUntil },
      notice: "The secret was rotated.",
    });
  });

  // A re-send is a new delivery of the same job to the same URL, with its own attempts and retries.
  router.post("/webhooks/deliveries/:deliveryId/resend", async (req, res) => {
    const { accountId } = customerOf(res);
    const id = await ctx.deliveries.resend(accountId, req.params.deliveryId);
    if (!id) return res.redirect(303, `${BASE}/webhooks`);
    await enqueueWebhookDelivery(ctx.producer, id);
    res.redirect(303, `${BASE}/webhooks?resent=1`);
  });

  return router;
}
