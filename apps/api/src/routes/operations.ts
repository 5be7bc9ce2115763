import { ApiError, type OperationSpec, operations, plans, validateOptions } from "@octavo/contracts";
import { isPlanId, newId, QuotaExceededError, type StoredFile, usageOf } from "@octavo/core";
import { type Request, type Response, Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf } from "../middleware/authenticate.js";
import { checkFileRules } from "../uploads/file-rules.js";
import { parseOperationRequest } from "../uploads/parse-operation-request.js";

async function discard(ctx: ApiContext, inputs: readonly StoredFile[]): Promise<void> {
  await Promise.all(inputs.map((input) => ctx.store.delete(input.storageKey)));
}

function quotaError(needed: number, remaining: number, periodEnd: string): ApiError {
  return new ApiError(
    "quota_exceeded",
    "Your Free plan's credits for this month are used up.",
    `This job needs ${needed} credits and ${remaining} remain until ${periodEnd}.`,
  );
}

async function accountPlan(ctx: ApiContext, accountId: string) {
  const account = await ctx.accounts.requireAccount(accountId);
  if (!isPlanId(account.plan)) throw new Error(`account ${accountId} has an unknown plan ${account.plan}`);
  return account.plan;
}

/**
 * POST /v1/<operation>: read and validate the whole request, store the uploads, commit the job row
 * with its credit reservation, and only then enqueue the job id. Anything refused on the way leaves
 * nothing behind.
 */
async function createJob(
  ctx: ApiContext,
  operation: OperationSpec,
  req: Request,
  res: Response,
): Promise<void> {
  if (!ctx.availableOperations.has(operation.id)) {
    throw new ApiError(
      "unavailable",
      `${operation.title} is not available on this server yet.`,
      "Its engine is not installed; retry later.",
    );
  }
  const accountId = accountIdOf(res.locals);
  const plan = await accountPlan(ctx, accountId);
  if (plans[plan].overageUsdPer1000Credits === null) {
    // Cheap early answer before reading any upload; the authoritative check is in the job's transaction.
    const usage = await usageOf(ctx.database.db, accountId, plan, new Date());
    if (usage.creditsRemaining < operation.credits)
      throw quotaError(operation.credits, usage.creditsRemaining, usage.periodEnd);
  }
  const jobId = newId();
  const request = await parseOperationRequest(req, res, ctx.store, jobId, plans[plan].maxFileBytes);
  try {
    if (request.urls.length > 0) {
      throw new ApiError(
        "unavailable",
        "URL inputs are not available on this server yet.",
        "Upload the files with multipart/form-data.",
      );
    }
    checkFileRules(
      operation,
      request.inputs.map((input) => input.name),
    );
    const options = validateOptions(operation.id, request.rawOptions);
    if (!options.ok)
      throw new ApiError(
        "invalid_options",
        `The options of ${operation.title} are not valid.`,
        options.detail,
      );
    if (request.webhookUrl !== undefined && !plans[plan].webhooks) {
      throw new ApiError(
        "webhooks_not_in_plan",
        "Webhooks are not part of the Free plan.",
        "Poll GET /v1/jobs/{id}, or upgrade to a paid plan.",
      );
    }
    if (request.webhookUrl !== undefined) {
      throw new ApiError(
        "unavailable",
        "Webhooks are not available on this server yet.",
        "Poll GET /v1/jobs/{id} instead.",
      );
    }
    await ctx.jobs.create({
      id: jobId,
      accountId,
      plan,
      operation: operation.id,
      options: options.value as Record<string, unknown>,
      webhookUrl: request.webhookUrl,
      inputs: request.inputs,
    });
  } catch (error) {
    await discard(ctx, request.inputs);
    if (error instanceof QuotaExceededError) throw quotaError(error.needed, error.remaining, error.periodEnd);
    throw error;
  }
  try {
    await ctx.producer.enqueue(operation.id, jobId);
  } catch (error) {
    // The job is committed; the janitor re-enqueues queued jobs that never reached Redis.
    ctx.logger.warn({ err: error, jobId }, "enqueue failed; the janitor will retry it");
  }
  res.status(202).json({
    id: jobId,
    status: "queued",
    credits: operation.credits,
    statusUrl: `${ctx.config.publicUrl}/v1/jobs/${jobId}`,
  });
}

export function operationsRouter(ctx: ApiContext): Router {
  const router = Router();
  for (const operation of operations) {
    router.post(operation.path, (req, res) => createJob(ctx, operation, req, res));
  }
  return router;
}
