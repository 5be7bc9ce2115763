import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

/** A client's own id is kept when it is reasonable: short, printable, no spaces. */
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Every response carries X-Request-Id: the client's value when it sent one, else a new id. Logs and
 * error bodies quote it, so a support question can point at one request.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const sent = req.get("x-request-id");
  const id = sent && CLIENT_ID.test(sent) ? sent : `req_${randomUUID().replaceAll("-", "")}`;
  res.locals.requestId = id;
  res.setHeader("X-Request-Id", id);
  next();
};
