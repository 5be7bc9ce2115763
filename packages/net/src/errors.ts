/** What went wrong, in the error codes of the API (400 blocked_url / unreachable_url, 413 too_large). */
export type OutboundErrorCode = "blocked_url" | "unreachable_url" | "too_large";

const SUMMARY: Record<OutboundErrorCode, string> = {
  blocked_url: "URL not allowed",
  unreachable_url: "URL could not be fetched",
  too_large: "File too large",
};

/**
 * The one error every outbound call throws. `detail` says what happened and what to fix, in words a
 * client can act on; it never holds a response body or a full URL (query strings may carry secrets).
 */
export class OutboundError extends Error {
  override readonly name = "OutboundError";
  readonly code: OutboundErrorCode;
  readonly detail: string;

  constructor(code: OutboundErrorCode, detail: string, options?: ErrorOptions) {
    super(`${SUMMARY[code]}: ${detail}`, options);
    this.code = code;
    this.detail = detail;
  }
}

export const blocked = (detail: string): OutboundError => new OutboundError("blocked_url", detail);

export const unreachable = (detail: string, cause?: unknown): OutboundError =>
  new OutboundError("unreachable_url", detail, cause === undefined ? undefined : { cause });

export const tooLarge = (detail: string): OutboundError => new OutboundError("too_large", detail);

/** The `code` of a Node or undici error (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET, …). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
