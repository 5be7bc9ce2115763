import { ApiError, operations, PIPELINE_PATH, plans } from "@octavo/contracts";
import { IdempotencyConflictError, newId, QuotaExceededError } from "@octavo/core";
import { type Request, type Response, Router } from "express";
import type { ApiContext } from "../context.js";
import { ownerOf, planOf } from "../middleware/authenticate.js";
import { limitTestJobs } from "../middleware/rate-limit.js";
import { type AdmittedRequest, type Asking, admit, admitPipeline } from "../uploads/admission.js";
import { type IdempotentRequest, idempotencyOf, replayed } from "../uploads/idempotent-request.js";
import { InputSession } from "../uploads/input-session.js";
import { parseOperationRequest, type RequestShape } from "../uploads/parse-operation-request.js";

function quotaError(error: QuotaExceededError): ApiError {
  return new ApiError(
    "quota_exceeded",
    "Your Free plan's credits for this month are used up.",
    `This job needs ${error.needed} credits and ${error.remaining} remain until ${error.periodEnd}.`,
  );
}

/** What differs between the endpoints that create jobs: an operation's, or the pipeline's. */
interface JobEndpoint {
  path: string;
  /** The body field beside the inputs, and the named upload fields. */
  shape: RequestShape;
  /** Options left out of the Idempotency-Key fingerprint, as they are out of every row. */
  secretOptions: readonly string[];
  /** The fewest credits the job can cost: the cheap refusal before any upload is read. */
  leastCredits: number;
  admit(asking: Asking): Promise<AdmittedRequest>;
}

/**
 * POST /v1/<operation> and POST /v1/pipeline: read the request and store its uploads, admit it
 * (options or steps, inputs, the service's state), then let core accept the job (credits,
 * Idempotency-Key, rows, queue). Anything refused on the way leaves nothing behind.
 */
async function createJob(ctx: ApiContext, endpoint: JobEndpoint, req: Request, res: Response): Promise<void> {
  const owner = ownerOf(res.locals);
  const { accountId } = owner;
  const plan = planOf(res.locals);
  const session = new InputSession(ctx.store, newId());
  let claim: IdempotentRequest | undefined;
  try {
    // Core checks again, with the job's own credits, when it accepts the job.
    await ctx.jobs.checkCredits(owner, plan, endpoint.leastCredits);
    if (owner.mode === "test") await limitTestJobs(ctx.rateLimiter, res, accountId);
    const request = await parseOperationRequest(req, res, session, plans[plan].maxFileBytes, endpoint.shape);
    const idempotency = await idempotencyOf(ctx, req, res, endpoint, owner, request);
    if (idempotency === "replayed") return await session.discard();
    claim = idempotency;
    const admitted = await endpoint.admit({ accountId, plan, request, session });
    const answer = {
      id: session.jobId,
      status: "queued",
      credits: admitted.credits,
      statusUrl: `${ctx.config.publicUrl}/v1/jobs/${session.jobId}`,
    };
    const accepted = await ctx.jobs.accept({
      id: session.jobId,
      accountId,
      mode: owner.mode,
      plan,
      operation: admitted.operation,
      options: admitted.options,
      credits: admitted.credits,
      ...(admitted.steps ? { steps: admitted.steps } : {}),
      webhookUrl: request.webhookUrl,
      inputs: admitted.inputs,
      requestId: String(res.locals.requestId),
      ...(claim ? { idempotency: { ...claim, answer: { status: 202, body: answer } } } : {}),
    });
    const jobLog = { jobId: session.jobId, requestId: res.locals.requestId, operation: admitted.operation };
    ctx.logger.info(jobLog, "job accepted");
    if (!accepted.queued) ctx.logger.warn(jobLog, "enqueue failed; the janitor will retry it");
    ctx.metrics.jobAccepted(admitted.operation);
    res.status(202).json(answer);
  } catch (error) {
    await session.discard();
    if (error instanceof QuotaExceededError) throw quotaError(error);
    // A request with the same key was accepted while this one was read: answer as it was answered.
    if (error instanceof IdempotencyConflictError && claim) {
      if (await replayed(ctx, res, owner, claim)) return;
      throw new ApiError(
        "idempotency_conflict",
        "A request with this Idempotency-Key is being processed; retry in a moment.",
        `Idempotency-Key: ${claim.key}`,
      );
    }
    throw error;
  }
}

/** The cheapest operation: the least a pipeline can cost, known before its steps are read. */
const leastCredits = Math.min(...operations.map((operation) => operation.credits));

export function operationsRouter(ctx: ApiContext): Router {
  const router = Router();
  for (const operation of operations) {
    const endpoint: JobEndpoint = {
      path: operation.path,
      shape: { field: "options", namedFields: Object.keys(operation.files.named ?? {}) },
      secretOptions: operation.secretOptions ?? [],
      leastCredits: operation.credits,
      admit: (asking) => admit(ctx, operation, asking),
    };
    router.post(operation.path, (req, res) => createJob(ctx, endpoint, req, res));
  }
  const pipeline: JobEndpoint = {
    path: PIPELINE_PATH,
    shape: { field: "steps", namedFields: [] },
    secretOptions: [],
    leastCredits,
    admit: (asking) => admitPipeline(ctx, asking),
  };
  router.post(PIPELINE_PATH, (req, res) => createJob(ctx, pipeline, req, res));
  return router;
}
