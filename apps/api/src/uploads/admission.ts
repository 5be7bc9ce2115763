import {
  ApiError,
  durationInWords,
  getOperation,
  type JobKind,
  type JobStep,
  type OperationSpec,
  PIPELINE,
  type PlanId,
  plans,
  validateOptions,
  validatePipelineSteps,
} from "@octavo/contracts";
import type { StoredFile } from "@octavo/core";
import type { Response } from "express";
import type { ApiContext } from "../context.js";
import { checkFileCount, checkFileNames } from "./file-rules.js";
import type { InputSession } from "./input-session.js";
import type { OperationRequest } from "./parse-operation-request.js";

/** A request the service takes: what it runs, its options validated with defaults, every input stored. */
export interface AdmittedRequest {
  operation: JobKind;
  options: Record<string, unknown>;
  /** What the job costs if it succeeds. */
  credits: number;
  /** A pipeline's steps, each queued. */
  steps?: JobStep[];
  inputs: StoredFile[];
}

/** Who is asking, and for what: the same for every kind of job. */
export interface Asking {
  accountId: string;
  plan: PlanId;
  request: OperationRequest;
  session: InputSession;
  res: Response;
}

/** What a job needs beyond its options: the queue it waits in, the engines it runs, the file rules. */
interface JobNeeds {
  kind: JobKind;
  /** For messages: "Merge PDF", "Pipeline". */
  title: string;
  /** The engines that must be offered (a pipeline's steps, and the pipeline queue itself). */
  offered: readonly JobKind[];
  /** Whose file rules the inputs follow: the operation's, or a pipeline's first step's. */
  files: OperationSpec;
  /** html-to-pdf's options.url, which stands for its one input. */
  pageUrl: string | undefined;
}

function unavailable(res: Response, message: string, detail: string, retryAfterSeconds: number): ApiError {
  res.setHeader("Retry-After", String(retryAfterSeconds));
  return new ApiError("unavailable", message, detail);
}

/**
 * Back-pressure, told in time: a queue whose waiting jobs would take too long to run refuses everyone
 * (503); an account whose own waiting jobs would, gets 429 for its next ones while others go on.
 */
async function checkBacklog(
  ctx: ApiContext,
  needs: JobNeeds,
  accountId: string,
  res: Response,
): Promise<void> {
  const backlog = await ctx.backlog.check(accountId, needs.kind);
  if (backlog.over === false) return;
  const wait = durationInWords(backlog.retryAfterSeconds);
  const waiting = durationInWords(Math.ceil(backlog.seconds));
  if (backlog.over === "queue") {
    throw unavailable(
      res,
      `The ${needs.title} queue is full.`,
      `The jobs waiting would take about ${waiting} to run; retry in ${wait}.`,
      backlog.retryAfterSeconds,
    );
  }
  res.setHeader("Retry-After", String(backlog.retryAfterSeconds));
  throw new ApiError(
    "rate_limited",
    `Your ${needs.title} jobs already waiting would take about ${waiting} to run.`,
    `Send more as they finish: retry in ${wait} (the Retry-After header).`,
  );
}

const pageUrlOf = (operation: OperationSpec, options: Record<string, unknown>) =>
  operation.id === "html-to-pdf" && typeof options.url === "string" ? options.url : undefined;

/**
 * Everything after the options that may refuse a request before its job exists, in the order a client
 * can act on: the number of inputs, the webhook and URLs (the outbound policy), the service's own state
 * (engines, queue backlog); then the URL inputs are downloaded and every file name checked.
 */
async function admitInputs(ctx: ApiContext, needs: JobNeeds, asking: Asking): Promise<StoredFile[]> {
  const { request, res } = asking;
  const limits = plans[asking.plan];
  checkFileCount(needs.files, request.inputs.length, needs.pageUrl !== undefined);
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
  if (needs.pageUrl !== undefined) await ctx.outbound.check(needs.pageUrl, "options.url");
  const missing = needs.offered.filter((kind) => !ctx.availableOperations.has(kind));
  if (missing.length > 0) {
    throw unavailable(
      res,
      `${needs.title} is not available on this server yet.`,
      `The engines of ${missing.join(", ")} are not installed; retry later.`,
      3600,
    );
  }
  await checkBacklog(ctx, needs, asking.accountId, res);

  const inputs: StoredFile[] = await Promise.all(
    request.inputs.map((input) =>
      input.kind === "file"
        ? input.file
        : ctx.outbound.download(input.url, asking.session, input.position, limits.maxFileBytes),
    ),
  );
  checkFileNames(
    needs.files,
    inputs.map((input) => input.name),
  );
  return inputs;
}

/** POST /v1/<operation>: the options against the operation's schema, then the inputs. */
export async function admit(
  ctx: ApiContext,
  operation: OperationSpec,
  asking: Asking,
): Promise<AdmittedRequest> {
  const options = validateOptions(operation.id, asking.request.rawOptions);
  if (!options.ok)
    throw new ApiError("invalid_options", `The options of ${operation.title} are not valid.`, options.detail);
  const value = options.value as Record<string, unknown>;
  const needs: JobNeeds = {
    kind: operation.id,
    title: operation.title,
    offered: [operation.id],
    files: operation,
    pageUrl: pageUrlOf(operation, value),
  };
  const inputs = await admitInputs(ctx, needs, asking);
  return { operation: operation.id, options: value, credits: operation.credits, inputs };
}

/** POST /v1/pipeline: every step and the chain (400 invalid_options naming the step), then the inputs. */
export async function admitPipeline(ctx: ApiContext, asking: Asking): Promise<AdmittedRequest> {
  const pipeline = validatePipelineSteps(asking.request.rawOptions, {
    inputCount: asking.request.inputs.length,
  });
  if (!pipeline.ok)
    throw new ApiError("invalid_options", "The steps of the pipeline are not valid.", pipeline.detail);
  const [first] = pipeline.steps;
  if (first === undefined) throw new Error("a valid pipeline has a first step");
  const firstOperation = getOperation(first.operation);
  const needs: JobNeeds = {
    kind: PIPELINE,
    title: "Pipeline",
    offered: [...new Set(pipeline.steps.map((step) => step.operation)), PIPELINE],
    files: firstOperation,
    pageUrl: pageUrlOf(firstOperation, first.options),
  };
  const inputs = await admitInputs(ctx, needs, asking);
  return {
    operation: PIPELINE,
    options: { steps: pipeline.steps },
    credits: pipeline.credits,
    steps: pipeline.steps.map((step) => ({ operation: step.operation, status: "queued" })),
    inputs,
  };
}
