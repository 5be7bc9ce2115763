import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import { type SignOptions, signPdf } from "./sign.js";
import { type VerifyReport, verifySignatures as verifyFile } from "./verify.js";

/*
 * The operations as the worker's sandbox calls them: (inputs, options, context), every input in one list,
 * the named uploads (Sign PDF's `certificate` and `image`, Verify signatures' `roots`) marked by their field.
 */

/** The sandbox's context: the operator's OCTAVO_URL_ALLOWLIST, for the time-stamp request. */
export type OperationContext = EngineContext & { urlAllowlist?: string };

/** The one document to process: the input that came in no named field (the API allows exactly one). */
function documentOf(inputs: readonly EngineInput[]): EngineInput {
  const documents = inputs.filter((input) => input.field === undefined);
  const [document] = documents;
  if (document === undefined || documents.length !== 1) {
    throw new Error(`expected exactly one document among the inputs, got ${documents.length}`);
  }
  return document;
}

const inField = (inputs: readonly EngineInput[], field: string) =>
  inputs.filter((input) => input.field === field);

/** POST /v1/sign: the document, the `certificate` upload and an optional `image`. */
export async function sign(
  inputs: readonly EngineInput[],
  options: SignOptions,
  ctx: OperationContext,
): Promise<EngineResult> {
  const [certificate] = inField(inputs, "certificate");
  const [image] = inField(inputs, "image");
  // The API refuses a request without one; a job without one is a bug, not the client's mistake.
  if (certificate === undefined) throw new Error("Sign PDF ran without its certificate upload");
  // The outbound policy's module is loaded only when there is a time-stamp server to call.
  const outbound =
    options.timestampUrl === undefined
      ? {}
      : { outbound: { allowlist: (await import("@octavo/net")).parseAllowlist(ctx.urlAllowlist) } };
  return signPdf({ pdf: documentOf(inputs), certificate, ...(image ? { image } : {}) }, options, {
    ...ctx,
    ...outbound,
  });
}

/** POST /v1/verify-signatures: the document and the `roots` uploads, if any. */
export function verifySignatures(
  inputs: readonly EngineInput[],
  options: Record<string, never>,
  ctx: OperationContext,
): Promise<EngineResult & { report: VerifyReport }> {
  return verifyFile({ pdf: documentOf(inputs), roots: inField(inputs, "roots") }, options, ctx);
}
