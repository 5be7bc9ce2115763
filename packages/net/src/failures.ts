import type { Deadline } from "./abort.js";
import { errorCode, OutboundError, unreachable } from "./errors.js";

const CLOSED = new Set([
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);
const CONNECT_TIMEOUT = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT"]);
const NO_ROUTE = new Set(["EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "EHOSTDOWN", "ENETDOWN"]);

const isTlsCode = (code: string): boolean =>
  code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.includes("CERT") || code === "EPROTO";

/**
 * Turns what undici or the socket threw into the error the caller should see. The caller's own abort
 * stays the caller's reason; everything else becomes an OutboundError naming `where` (host:port), the
 * error code and what to check. Response bodies are never part of these messages.
 */
export function outboundFailure(
  error: unknown,
  where: string,
  deadline: Deadline,
  caller: AbortSignal | undefined,
): unknown {
  if (caller?.aborted) return caller.reason;
  if (error instanceof OutboundError) return error;
  if (error instanceof Error && error.cause instanceof OutboundError) return error.cause;
  const deadlineReason: unknown = deadline.signal.reason;
  if (deadline.timedOut() && deadlineReason instanceof OutboundError) return deadlineReason;
  const code = errorCode(error);
  if (code === "ECONNREFUSED") {
    return unreachable(`${where} refused the connection (ECONNREFUSED); check the host and port`, error);
  }
  if (code !== undefined && CLOSED.has(code)) {
    return unreachable(`the connection to ${where} closed before a complete answer (${code})`, error);
  }
  if (code !== undefined && CONNECT_TIMEOUT.has(code)) {
    return unreachable(`connecting to ${where} timed out (${code})`, error);
  }
  if (code !== undefined && NO_ROUTE.has(code)) {
    return unreachable(`${where} cannot be reached from the service (${code})`, error);
  }
  if (code !== undefined && isTlsCode(code)) {
    const message = error instanceof Error ? `: ${error.message}` : "";
    return unreachable(
      `the TLS connection to ${where} failed (${code})${message}; check its certificate`,
      error,
    );
  }
  // A system error code (ECONNRESET) helps the client; an exception's class name would not.
  return unreachable(`the request to ${where} failed${code === undefined ? "" : ` (${code})`}`, error);
}
