import type { KeyMode } from "@octavo/db";
import type { Request } from "express";

/**
 * The data a page shows: live (the default) or test, the jobs of test keys, chosen with `?mode=test` as
 * Stripe's dashboard switches to test data. A link that keeps the mode carries the parameter.
 */
export function viewedMode(req: Request): KeyMode {
  return req.query.mode === "test" ? "test" : "live";
}

/** The path in the mode: "/jobs" → "/jobs?mode=test". */
export function inMode(path: string, mode: KeyMode): string {
  if (mode === "live") return path;
  return `${path}${path.includes("?") ? "&" : "?"}mode=test`;
}
