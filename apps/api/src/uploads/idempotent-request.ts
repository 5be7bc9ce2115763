import { createHash } from "node:crypto";
import { ApiError, type OperationSpec } from "@octavo/contracts";
import type { Request, Response } from "express";
import type { ApiContext } from "../context.js";
import type { OperationRequest } from "./parse-operation-request.js";

export type IdempotencyClaim =
  | { kind: "none" }
  | { kind: "replayed" }
  | { kind: "claimed"; complete(status: number, body: unknown): Promise<void>; abandon(): Promise<void> };

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** What makes two requests "the same": endpoint, options, file contents and names, URLs, webhook. */
function fingerprint(operation: OperationSpec, request: OperationRequest): string {
  const inputs = request.inputs.map((input) =>
    input.kind === "file" ? { file: input.file.name, sha256: input.sha256 } : { url: input.url },
  );
  const material = JSON.stringify(
    canonical({
      path: operation.path,
      options: request.rawOptions ?? {},
      inputs,
      webhook: request.webhookUrl ?? null,
    }),
  );
  return createHash("sha256").update(material).digest("hex");
}

/**
 * Idempotency-Key on an operation POST. A first request claims the key; a replay answers with the
 * first request's saved response (and the Idempotent-Replayed header) and creates nothing.
 */
export async function beginIdempotentRequest(
  ctx: ApiContext,
  req: Request,
  res: Response,
  operation: OperationSpec,
  accountId: string,
  request: OperationRequest,
): Promise<IdempotencyClaim> {
  const key = req.get("idempotency-key");
  if (key === undefined) return { kind: "none" };
  if (!KEY_SHAPE.test(key)) {
    throw new ApiError(
      "invalid_request",
      "The Idempotency-Key header is not valid.",
      "Use 1 to 255 printable characters, e.g. a UUID.",
    );
  }
  const outcome = await ctx.idempotency.begin(accountId, key, fingerprint(operation, request));
  if (outcome.kind === "conflict")
    throw new ApiError("idempotency_conflict", outcome.reason, `Idempotency-Key: ${key}`);
  if (outcome.kind === "replay") {
    res.setHeader("Idempotent-Replayed", "true");
    res.status(outcome.status).type("application/json").send(outcome.body);
    return { kind: "replayed" };
  }
  return {
    kind: "claimed",
    complete: (status, body) => ctx.idempotency.complete(accountId, key, status, JSON.stringify(body)),
    abandon: () => ctx.idempotency.abandon(accountId, key),
  };
}
