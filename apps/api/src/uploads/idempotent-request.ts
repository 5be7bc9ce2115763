import { createHash } from "node:crypto";
import { ApiError } from "@octavo/contracts";
import type { JobOwner } from "@octavo/core";
import type { Request, Response } from "express";
import type { ApiContext } from "../context.js";
import type { OperationRequest } from "./parse-operation-request.js";

/** The request's Idempotency-Key and what makes two requests "the same". */
export interface IdempotentRequest {
  key: string;
  fingerprint: string;
}

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

/** The options as sent, without the secret ones: a fingerprint is kept, and a hash would let a password be guessed. */
function withoutSecrets(options: unknown, secretOptions: readonly string[]): unknown {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return options;
  return Object.fromEntries(Object.entries(options).filter(([name]) => !secretOptions.includes(name)));
}

/**
 * What makes two requests "the same": endpoint, options (or steps) but the secret ones, file contents and
 * names (the named uploads' with their field), URLs, webhook.
 */
function fingerprint(endpoint: FingerprintedEndpoint, request: OperationRequest): string {
  const inputs = request.inputs.map((input) =>
    input.kind === "file" ? { file: input.file.name, sha256: input.sha256 } : { url: input.url },
  );
  const named = request.named.map((file) => ({
    field: file.field,
    file: file.file.name,
    sha256: file.sha256,
  }));
  const material = JSON.stringify(
    canonical({
      path: endpoint.path,
      options: withoutSecrets(request.rawOptions ?? {}, endpoint.secretOptions),
      inputs,
      ...(named.length > 0 ? { named } : {}),
      webhook: request.webhookUrl ?? null,
    }),
  );
  return createHash("sha256").update(material).digest("hex");
}

/**
 * Idempotency-Key on an operation's or the pipeline's POST (`endpoint`). Undefined without the header; "replayed" when this request
 * repeats one that created a job: the first request's answer was sent again (with the
 * Idempotent-Replayed header) and nothing is created. Otherwise the key to bind to the new job.
 */
/** The endpoint a fingerprint is taken for. */
export interface FingerprintedEndpoint {
  path: string;
  secretOptions: readonly string[];
}

export async function idempotencyOf(
  ctx: ApiContext,
  req: Request,
  res: Response,
  endpoint: FingerprintedEndpoint,
  owner: JobOwner,
  request: OperationRequest,
): Promise<IdempotentRequest | "replayed" | undefined> {
  const key = req.get("idempotency-key");
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) {
    throw new ApiError(
      "invalid_request",
      "The Idempotency-Key header is not valid.",
      "Use 1 to 255 printable characters, e.g. a UUID.",
    );
  }
  const claim = { key, fingerprint: fingerprint(endpoint, request) };
  return (await replayed(ctx, res, owner, claim)) ? "replayed" : claim;
}

/** Sends the first request's answer when the key was used for this request; 409 for another request. */
export async function replayed(
  ctx: ApiContext,
  res: Response,
  owner: JobOwner,
  claim: IdempotentRequest,
): Promise<boolean> {
  const outcome = await ctx.idempotency.lookup(owner, claim.key, claim.fingerprint);
  if (outcome.kind === "conflict")
    throw new ApiError("idempotency_conflict", outcome.reason, `Idempotency-Key: ${claim.key}`);
  if (outcome.kind === "proceed") return false;
  res.setHeader("Idempotent-Replayed", "true");
  res.status(outcome.status).type("application/json").send(outcome.body);
  return true;
}
