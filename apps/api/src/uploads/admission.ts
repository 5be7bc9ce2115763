import {
  ApiError,
  durationInWords,
  type OperationSpec,
  type PlanId,
  plans,
  validateOptions,
} from "@octavo/contracts";
import type { StoredFile } from "@octavo/core";
import type { Response } from "express";
import type { ApiContext } from "../context.js";
import { checkFileCount, checkFileNames } from "./file-rules.js";
import type { InputSession } from "./input-session.js";
import type { OperationRequest } from "./parse-operation-request.js";

/** A request the service takes: its options validated, with defaults, and every input stored. */
export interface AdmittedRequest {
  options: Record<string, unknown>;
  inputs: StoredFile[];
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
  operation: OperationSpec,
  accountId: string,
  res: Response,
): Promise<void> {
  const backlog = await ctx.backlog.check(accountId, operation.id);
  if (backlog.over === false) return;
  const wait = durationInWords(backlog.retryAfterSeconds);
  const waiting = durationInWords(Math.ceil(backlog.seconds));
  if (backlog.over === "queue") {
    throw unavailable(
      res,
      `The ${operation.title} queue is full.`,
      `The jobs waiting would take about ${waiting} to run; retry in ${wait}.`,
      backlog.retryAfterSeconds,
    );
  }
  res.setHeader("Retry-After", String(backlog.retryAfterSeconds));
  throw new ApiError(
    "rate_limited",
    `Your ${operation.title} jobs already waiting would take about ${waiting} to run.`,
    `Send more as they finish: retry in ${wait} (the Retry-After header).`,
  );
}

/**
 * Everything that may refuse a request before its job exists, in the order a client can act on: the
 * options, the number of inputs, the webhook and URLs (the outbound policy), the service's own state
 * (engine, queue backlog); then the URL inputs are downloaded and every file name checked.
 */
export async function admit(
  ctx: ApiContext,
  operation: OperationSpec,
  accountId: string,
  plan: PlanId,
  request: OperationRequest,
  session: InputSession,
  res: Response,
): Promise<AdmittedRequest> {
  const limits = plans[plan];
  const options = validateOptions(operation.id, request.rawOptions);
  if (!options.ok)
    throw new ApiError("invalid_options", `The options of ${operation.title} are not valid.`, options.detail);
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
  await checkBacklog(ctx, operation, accountId, res);

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
  return { options: options.value as Record<string, unknown>, inputs };
}
