import type { Logger } from "@octavo/config";
import { ApiError } from "@octavo/contracts";
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
      "JSON bodies are limited to 1 MB; upload files with multipart/form-data.",
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

/** The one place an error becomes a response: `{error, message, detail}`, internal detail only in the log. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = error instanceof ApiError ? error : fromHttpError(error);
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
    res.status(answer.status).json(answer.toBody());
  };
}
