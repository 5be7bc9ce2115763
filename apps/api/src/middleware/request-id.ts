import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

/** Every response carries a Request-Id (Stripe's convention), also written to the log lines. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = `req_${randomUUID().replaceAll("-", "")}`;
  res.locals.requestId = id;
  res.setHeader("Request-Id", id);
  next();
};
