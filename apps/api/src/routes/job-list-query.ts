import { ApiError, isJobKind, jobStatuses } from "@octavo/contracts";
import type { JobListQuery } from "@octavo/core";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
const PARAMETERS = ["status", "operation", "createdAfter", "createdBefore", "limit", "cursor", "include"];

/** GET /v1/jobs's query, read and checked: a wrong parameter is refused by name, never ignored. */
export interface JobListRequest {
  query: JobListQuery;
  includeOutputs: boolean;
}

function refuse(parameter: string, problem: string): never {
  throw new ApiError(
    "invalid_options",
    `The ${parameter} parameter is not valid.`,
    `${parameter}: ${problem}`,
  );
}

/** A time in RFC 3339, as ISO 8601 UTC with milliseconds: the form the job rows store. */
function time(parameter: string, value: string): string {
  const parsed = RFC_3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(parsed))
    refuse(parameter, `must be an RFC 3339 time such as 2026-11-01T00:00:00Z, got "${value}"`);
  return new Date(parsed).toISOString();
}

export function parseJobListQuery(raw: Record<string, unknown>): JobListRequest {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!PARAMETERS.includes(name)) refuse(name, `unknown; the parameters are ${PARAMETERS.join(", ")}`);
    if (typeof value !== "string") refuse(name, "give it once");
    values[name] = value;
  }
  const { status, operation, createdAfter, createdBefore, limit, cursor, include } = values;
  const knownStatus =
    status === undefined
      ? undefined
      : (jobStatuses.find((known) => known === status) ??
        refuse("status", `must be one of ${jobStatuses.join(", ")}`));
  if (operation !== undefined && !isJobKind(operation))
    refuse("operation", "must be an operation id such as merge or word-to-pdf, or pipeline");
  if (limit !== undefined && !(/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT))
    refuse("limit", `must be a whole number from 1 to ${MAX_LIMIT}`);
  if (include !== undefined && include !== "outputs") refuse("include", 'the only value is "outputs"');
  const after = createdAfter === undefined ? undefined : time("createdAfter", createdAfter);
  const before = createdBefore === undefined ? undefined : time("createdBefore", createdBefore);
  return {
    query: {
      status: knownStatus,
      operation,
      createdAfter: after,
      createdBefore: before,
      cursor,
      limit: limit === undefined ? DEFAULT_LIMIT : Number(limit),
    },
    includeOutputs: include === "outputs",
  };
}
