import type { Logger } from "@octavo/config";
import { ApiError, bytesPerMB, serviceLimits } from "@octavo/contracts";
import { StoreUnavailableError } from "@octavo/storage";
import type { ErrorRequestHandler, RequestHandler } from "express";

/** Unknown routes: the spec's error body, like every other non-2xx answer. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(
    new ApiError(
      "not_found",
      `There is no route ${req.method} ${req.path}.`,
      "See /v1/openapi.json for the routes.",
    ),
  );
};

/** Express/body-parser errors carry a status and a type; map the ones clients can cause. */
function fromHttpError(error: unknown): ApiError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (type === "entity.parse.failed") {
    return new ApiError(
      "invalid_request",
      "The request body is not valid JSON.",
      "Send a JSON object, or use multipart/form-data.",
    );
  }
  if (type === "entity.too.large" || status === 413) {
    return new ApiError(
      "too_large",
      "The request body is too large.",
      `JSON bodies are limited to ${serviceLimits.maxFieldBytes / bytesPerMB} MB; upload files with multipart/form-data.`,
    );
  }
  if (type === "encoding.unsupported" || type === "charset.unsupported") {
    return new ApiError("invalid_request", "The request body's encoding is not supported.", "Send UTF-8.");
  }
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new ApiError("invalid_request", "The request could not be read.", "");
  }
  return undefined;
}

const INFRASTRUCTURE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "57P01", // PostgreSQL: admin shutdown
  "57P03", // PostgreSQL: cannot connect now
  "53300", // PostgreSQL: too many connections
  "55000", // PostgreSQL: database not accepting connections
  "3D000", // PostgreSQL: database does not exist
  "28000", // PostgreSQL: authorization failed
  "28P01", // PostgreSQL: wrong password
  "08001", // PostgreSQL: cannot establish a connection
  "08006", // PostgreSQL: connection failure
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
]);

/** The database, Redis or the store is unreachable: the client should retry later, not report a bug. */
function isInfrastructureError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if (error instanceof StoreUnavailableError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && INFRASTRUCTURE_CODES.has(code)) return true;
  // pg's "not queryable": the server closed a connection while it was held (a transaction between statements).
  return (
    typeof message === "string" &&
    /Connection is closed|Stream isn't writeable|Connection terminated|connection error and is not queryable/.test(
      message,
    )
  );
}

/** The one place an error becomes a response: `{error, message, detail}`, internal detail only in the log. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let apiError = error instanceof ApiError ? error : fromHttpError(error);
    if (!apiError && isInfrastructureError(error)) {
      logger.error({ err: error, requestId: res.locals.requestId }, "a backing service is unreachable");
      res.setHeader("Retry-After", "5");
      apiError = new ApiError(
        "unavailable",
        "The service cannot take requests right now.",
        "A backing service is unreachable; retry in a few seconds.",
      );
    }
    if (!apiError) {
      logger.error(
        { err: error, method: req.method, path: req.path, requestId: res.locals.requestId },
        "unhandled error",
      );
    }
    const answer =
      apiError ??
      new ApiError(
        "internal_error",
        "Something went wrong on our side.",
        `Quote request id ${String(res.locals.requestId)} when you ask for help.`,
      );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (answer.retryAfterSeconds !== undefined)
      res.setHeader("Retry-After", String(answer.retryAfterSeconds));
    if (!req.complete && answer.code === "too_large") {
      // A file over the limit: answer now and close the connection instead of reading the rest of a
      // large upload.
      res.setHeader("Connection", "close");
      req.unpipe();
      req.pause();
      res.on("finish", () => {
        // A FIN now, and the socket torn down after a grace period (as a lingering close does), so the
        // client reads the answer before anything resets the connection.
        req.socket.end();
        setTimeout(() => req.socket.destroy(), 2_000).unref();
      });
    } else if (!req.complete) {
      // A check failed before the upload was read (the key, the credits, a backing service): the answer
      // goes now and the rest of the body is read and dropped. Closing with unread bytes makes the kernel
      // reset the connection, and a client still sending would never see the answer. A body still
      // arriving after the grace period is cut off.
      req.unpipe();
      req.resume();
      const cutOff = setTimeout(() => req.socket.destroy(), 2_000).unref();
      req.once("end", () => clearTimeout(cutOff));
    }
    res.status(answer.status).json({ ...answer.toBody(), requestId: res.locals.requestId });
  };
}
