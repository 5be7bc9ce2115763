import { ApiError } from "@octavo/contracts";
import type { Request, RequestHandler } from "express";

/** A body is still to come: not all read yet, and chunked or of a length above zero. */
function bodyToCome(req: Request): boolean {
  if (req.complete) return false;
  if (req.headers["transfer-encoding"] !== undefined) return true;
  return Number(req.headers["content-length"] ?? 0) > 0;
}

/**
 * Cuts off a request whose body stops arriving: after `idleSeconds` with no byte, it is answered 400 and
 * its connection closed. Closing the connection makes the upload parser fail, so whatever the request had
 * stored is removed. Without this a client that stalls (or means to) holds a connection and a partial
 * upload for as long as Node's whole-request timeout.
 */
export function bodyIdleCutOff(idleSeconds: number): RequestHandler {
  return (req, res, next) => {
    // Only while a body is still to come: a request without one (GET /v1/jobs/{id}?wait=60 waits in
    // silence) is not idle, and the socket's timer must not outlive the body on a kept-alive connection.
    if (!bodyToCome(req)) return next();
    const stop = () => req.setTimeout(0);
    res.once("finish", stop);
    req.setTimeout(idleSeconds * 1000, () => {
      stop();
      if (res.headersSent) {
        req.destroy();
        return;
      }
      const error = new ApiError(
        "invalid_request",
        "The request body stopped arriving.",
        `Nothing arrived for ${idleSeconds} s. Send the whole body without pausing (or ask the operator about OCTAVO_REQUEST_IDLE_SECONDS).`,
      );
      res.setHeader("Connection", "close");
      res.status(error.status).json({ ...error.toBody(), requestId: res.locals.requestId });
      // The request, not just its socket: once answered, the server no longer tracks it, and a closed
      // socket alone would leave it (and the upload parser reading it) waiting for the rest forever.
      res.once("finish", () => req.destroy());
    });
    req.once("end", stop);
    next();
  };
}
