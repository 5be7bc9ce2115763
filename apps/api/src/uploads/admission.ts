import {
  ApiError,
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
import {
  refuseOverBacklog,
  requireOffered,
  requireWebhooksInPlan,
  type StoredFile,
  sealSecretOptions,
  secretOptionsField,
  splitSecretOptions,
} from "@octavo/core";
import type { ApiContext } from "../context.js";
import { checkFileCount, checkFileNames, checkNamedUploads } from "./file-rules.js";
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

const pageUrlOf = (operation: OperationSpec, options: Record<string, unknown>) =>
  operation.id === "html-to-pdf" && typeof options.url === "string" ? options.url : undefined;

/**
 * Everything after the options that may refuse a request before its job exists, in the order a client
 * can act on: the number of inputs, the webhook and URLs (the outbound policy), the service's own state
 * (engines, queue backlog); then the URL inputs are downloaded and every file name checked.
 */
async function admitInputs(ctx: ApiContext, needs: JobNeeds, asking: Asking): Promise<StoredFile[]> {
  const { request } = asking;
  const limits = plans[asking.plan];
  checkFileCount(needs.files, request.inputs.length, needs.pageUrl !== undefined);
  if (request.webhookUrl !== undefined) {
    requireWebhooksInPlan(asking.plan);
    await ctx.outbound.check(request.webhookUrl, "webhook_url");
  }
  if (needs.pageUrl !== undefined) await ctx.outbound.check(needs.pageUrl, "options.url");
  requireOffered(needs.title, needs.offered, ctx.availableOperations);
  await refuseOverBacklog(ctx.backlog, asking.accountId, needs.kind, needs.title);

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
  checkNamedUploads(operation, asking.request.named, asking.request.form, value);
  for (const name of operation.urlOptions ?? []) {
    const url = value[name];
    if (typeof url === "string") await ctx.outbound.check(url, `options.${name}`);
  }
  const inputs = await admitInputs(ctx, needs, asking);
  const named = asking.request.named.map((file) => file.file);
  const { kept, secrets } = splitSecretOptions(value, operation.secretOptions);
  const sealed = secrets === undefined ? [] : [await storeSecrets(ctx, asking, secrets)];
  return {
    operation: operation.id,
    options: kept,
    credits: operation.credits,
    inputs: [...inputs, ...named, ...sealed],
  };
}

/** The secret options, sealed with the server's key, as an input file the worker opens (never a row). */
async function storeSecrets(
  ctx: ApiContext,
  asking: Asking,
  secrets: Record<string, unknown>,
): Promise<StoredFile> {
  const { key, size } = await asking.session.storeSecrets(sealSecretOptions(ctx.config.secretKey, secrets));
  return {
    name: "secret-options",
    size,
    contentType: "application/octet-stream",
    storageKey: key,
    field: secretOptionsField,
  };
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
