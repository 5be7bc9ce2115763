import { type PlanId, plans } from "@octavo/contracts";
import { isPlanId, usageOf } from "@octavo/core";
import { printJson, UsageError } from "../output.js";
import type { Runtime } from "../runtime.js";

function requirePlan(value: string | undefined): PlanId {
  if (value === undefined || !isPlanId(value)) {
    throw new UsageError(`--plan must be one of ${Object.keys(plans).join(", ")}`);
  }
  return value;
}

export async function accountsCommand(
  runtime: Runtime,
  args: string[],
  flags: Record<string, string | undefined>,
): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case "create": {
      if (!flags.email)
        throw new UsageError("accounts create needs --email E --plan free|starter|pro|business");
      printJson(await runtime.accounts.createAccount(flags.email, requirePlan(flags.plan)));
      return;
    }
    case "show": {
      const [id] = rest;
      if (!id) throw new UsageError("accounts show needs an account id");
      const account = await runtime.accounts.requireAccount(id);
      const plan = requirePlan(account.plan);
      const usage = await usageOf(runtime.database, id, plan, new Date());
      printJson({
        accountId: account.id,
        email: account.email,
        plan,
        createdAt: account.created_at,
        ...usage,
        keys: await runtime.accounts.listKeys(id),
      });
      return;
    }
    case "set-plan": {
      const [id, plan] = rest;
      if (!id || !plan) throw new UsageError("accounts set-plan needs ID PLAN");
      await runtime.accounts.setPlan(id, requirePlan(plan));
      printJson({ accountId: id, plan });
      return;
    }
    case "adjust-credits": {
      const [id, amount] = rest;
      if (!id || amount === undefined || !/^[+-]?\d+$/.test(amount)) {
        throw new UsageError(
          'accounts adjust-credits needs ID AMOUNT --reason "TEXT" (AMOUNT a whole number, negative to correct)',
        );
      }
      if (!flags.reason) throw new UsageError("accounts adjust-credits needs --reason TEXT");
      await runtime.accounts.adjustCredits(id, Number(amount), flags.reason);
      const account = await runtime.accounts.requireAccount(id);
      printJson({
        accountId: id,
        adjusted: Number(amount),
        reason: flags.reason,
        ...(await usageOf(runtime.database, id, requirePlan(account.plan), new Date())),
      });
      return;
    }
    case "rotate-webhook-secret": {
      const [id] = rest;
      if (!id) throw new UsageError("accounts rotate-webhook-secret needs an account id");
      const rotated = await runtime.accounts.rotateWebhookSecret(id);
      printJson({
        accountId: id,
        webhookSecret: rotated.webhookSecret,
        previousSecretValidUntil: rotated.previousValidUntil,
        note: "Until then each delivery carries two v1= signatures, one per secret.",
      });
      return;
    }
    default:
      throw new UsageError("accounts create | show | set-plan | adjust-credits | rotate-webhook-secret");
  }
}
