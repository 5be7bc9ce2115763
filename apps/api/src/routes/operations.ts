import { ApiError, type OperationSpec, operations, plans, validateOptions } from "@octavo/contracts";
import { newId, QuotaExceededError, type StoredFile, usageOf } from "@octavo/core";
import { type Request, type Response, Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf, planOf } from "../middleware/authenticate.js";
import { checkFileCount, checkFileNames } from "../uploads/file-rules.js";
import { beginIdempotentRequest, type IdempotencyClaim } from "../uploads/idempotent-request.js";
import { InputSession } from "../uploads/input-session.js";
import { parseOperationRequest } from "../uploads/parse-operation-request.js";

function quotaError(needed: number, remaining: number, periodEnd: string): ApiError {
  return new ApiError(
    "quota_exceeded",
    "Your Free plan's credits for this month are used up.",
    `This job needs ${needed} credits and ${remaining} remain until ${periodEnd}.`,
  );
}

function unavailable(res: Response, message: string, detail: string, retryAfterSeconds: number): ApiError {
  res.setHeader("Retry-After", String(retryAfterSeconds));
  return new ApiError("unavailable", message, detail);
}

/**
 * POST /v1/<operation>: read and validate the whole request, store the uploads and download the URL
 * inputs, commit the job row with its credit reservation, and only then enqueue the job id. Anything
 * refused on the way leaves nothing behind.
 */
async function createJob(
  ctx: ApiContext,
  operation: OperationSpec,
  req: Request,
  res: Response,
): Promise<void> {
  const accountId = accountIdOf(res.locals);
  const plan = planOf(res.locals);
  const limits = plans[plan];
  if (limits.overageUsdPer1000Credits === null) {
    // Cheap early answer before reading any upload; the authoritative check is in the job's transaction.
    const usage = await usageOf(ctx.database.db, accountId, plan, new Date());
    if (usage.creditsRemaining < operation.credits)
      throw quotaError(operation.credits, usage.creditsRemaining, usage.periodEnd);
  }

  const session = new InputSession(ctx.store, newId());
  let claim: IdempotencyClaim | undefined;
  try {
    const request = await parseOperationRequest(req, res, session, limits.maxFileBytes);
    claim = await beginIdempotentRequest(ctx, req, res, operation, accountId, request);
    if (claim.kind === "replayed") {
      await session.discard();
      return;
    }

    const options = validateOptions(operation.id, request.rawOptions);
    if (!options.ok)
      throw new ApiError(
        "invalid_options",
        `The options of ${operation.title} are not valid.`,
        options.detail,
      );
    const pageUrl = operation.id === "html-to-pdf" ? (options.value as { url?: string }).url : undefined;
    checkFileCount(operation, request.inputs.length, pageUrl !== undefined);
    if (request.webhookUrl !== undefined) {
      if (!limits.webhooks) {
        throw new ApiError(
          "webhooks_not_in_plan",
          "Webhooks are not part of the Free plan.",
          "Poll GET /v1/jobs/{id}, or upgrade to a paid plan.",
        );
      }
      await ctx.outbound.check(request.webhookUrl, "webhook_url");
    }
    if (pageUrl !== undefined) await ctx.outbound.check(pageUrl, "options.url");
    if (!ctx.availableOperations.has(operation.id)) {
      throw unavailable(
        res,
        `${operation.title} is not available on this server yet.`,
        "Its engine is not installed; retry later.",
        3600,
      );
    }
    if (await ctx.producer.isBacklogged(operation.id, ctx.config.queueMaxWaiting)) {
      throw unavailable(
        res,
        `The ${operation.title} queue is full.`,
        "Too many jobs are waiting; retry in a minute.",
        60,
      );
    }

    const inputs: StoredFile[] = await Promise.all(
      request.inputs.map((input) =>
        input.kind === "file"
          ? input.file
          : ctx.outbound.download(input.url, session, input.position, limits.maxFileBytes),
      ),
    );
    checkFileNames(
      operation,
      inputs.map((input) => input.name),
    );

    await ctx.jobs.create({
      id: session.jobId,
      accountId,
      plan,
      operation: operation.id,
      options: options.value as Record<string, unknown>,
      webhookUrl: request.webhookUrl,
      inputs,
    });
  } catch (error) {
    await session.discard();
    if (claim?.kind === "claimed") await claim.abandon();
    if (error instanceof QuotaExceededError) throw quotaError(error.needed, error.remaining, error.periodEnd);
    throw error;
  }

  try {
    await ctx.producer.enqueue(operation.id, session.jobId);
  } catch (error) {
    // The job is committed; the janitor re-enqueues queued jobs that never reached the queue.
    ctx.logger.warn({ err: error, jobId: session.jobId }, "enqueue failed; the janitor will retry it");
  }
  const body = {
    id: session.jobId,
    status: "queued",
    credits: operation.credits,
    statusUrl: `${ctx.config.publicUrl}/v1/jobs/${session.jobId}`,
  };
  if (claim?.kind === "claimed") await claim.complete(202, body);
  res.status(202).json(body);
}

export function operationsRouter(ctx: ApiContext): Router {
  const router = Router();
  for (const operation of operations) {
    router.post(operation.path, (req, res) => createJob(ctx, operation, req, res));
  }
  return router;
}
