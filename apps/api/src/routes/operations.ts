import { ApiError, type OperationSpec, operations, plans } from "@octavo/contracts";
import { IdempotencyConflictError, newId, QuotaExceededError } from "@octavo/core";
import { type Request, type Response, Router } from "express";
import type { ApiContext } from "../context.js";
import { accountIdOf, planOf } from "../middleware/authenticate.js";
import { admit } from "../uploads/admission.js";
import { type IdempotentRequest, idempotencyOf, replayed } from "../uploads/idempotent-request.js";
import { InputSession } from "../uploads/input-session.js";
import { parseOperationRequest } from "../uploads/parse-operation-request.js";

function quotaError(error: QuotaExceededError): ApiError {
  return new ApiError(
    "quota_exceeded",
    "Your Free plan's credits for this month are used up.",
    `This job needs ${error.needed} credits and ${error.remaining} remain until ${error.periodEnd}.`,
  );
}

/**
 * POST /v1/<operation>: read the request and store its uploads, admit it (options, inputs, the
 * service's state), then let core accept the job (credits, Idempotency-Key, rows, queue). Anything
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
  const session = new InputSession(ctx.store, newId());
  let claim: IdempotentRequest | undefined;
  try {
    // A cheap answer before any upload is read; core checks again when it accepts the job.
    await ctx.jobs.checkCredits(accountId, plan, operation.id);
    const request = await parseOperationRequest(req, res, session, plans[plan].maxFileBytes);
    const idempotency = await idempotencyOf(ctx, req, res, operation, accountId, request);
    if (idempotency === "replayed") return await session.discard();
    claim = idempotency;
    const admitted = await admit(ctx, operation, accountId, plan, request, session, res);
    const answer = {
      id: session.jobId,
      status: "queued",
      credits: operation.credits,
      statusUrl: `${ctx.config.publicUrl}/v1/jobs/${session.jobId}`,
    };
    const accepted = await ctx.jobs.accept({
      id: session.jobId,
      accountId,
      plan,
      operation: operation.id,
      options: admitted.options,
      webhookUrl: request.webhookUrl,
      inputs: admitted.inputs,
      requestId: String(res.locals.requestId),
      ...(claim ? { idempotency: { ...claim, answer: { status: 202, body: answer } } } : {}),
    });
    const jobLog = { jobId: session.jobId, requestId: res.locals.requestId, operation: operation.id };
    ctx.logger.info(jobLog, "job accepted");
    if (!accepted.queued) ctx.logger.warn(jobLog, "enqueue failed; the janitor will retry it");
    ctx.metrics.jobAccepted(operation.id);
    res.status(202).json(answer);
  } catch (error) {
    await session.discard();
    if (error instanceof QuotaExceededError) throw quotaError(error);
    // A request with the same key was accepted while this one was read: answer as it was answered.
    if (error instanceof IdempotencyConflictError && claim) {
      if (await replayed(ctx, res, accountId, claim)) return;
      throw new ApiError(
        "idempotency_conflict",
        "A request with this Idempotency-Key is being processed; retry in a moment.",
        `Idempotency-Key: ${claim.key}`,
      );
    }
    throw error;
  }
}

export function operationsRouter(ctx: ApiContext): Router {
  const router = Router();
  for (const operation of operations) {
    router.post(operation.path, (req, res) => createJob(ctx, operation, req, res));
  }
  return router;
}
