import type { components } from "./generated/api.js";
import type { OperationOptions } from "./generated/routes.js";

type Schemas = components["schemas"];

/** The id of an operation, as in its path: "merge", "word-to-pdf". */
export type OperationId = keyof OperationOptions;
export type { OperationOptions };

/** The 202 answer of an operation endpoint: the new job's id, status, credits and statusUrl. */
export type JobCreated = Schemas["JobCreated"];
/** A job as the API returns it (GET /v1/jobs/{id} and the webhook body). */
export type ApiJob = Schemas["Job"];
/** An output of a done job as the API returns it. */
export type ApiOutput = Schemas["Output"];
/** A pipeline job's step. */
export type JobStep = Schemas["JobStep"];
/** The account: plan, credits this month and the plan's limits. */
export type Account = Schemas["Account"];
/** The error body of every non-2xx answer. */
export type ErrorBody = Schemas["ErrorBody"];
/** A job's status. */
export type JobStatus = ApiJob["status"];

/** A step of a pipeline: an operation and its options. */
export type PipelineStep = {
  [Id in OperationId]: { operation: Id; options?: OperationOptions[Id] };
}[OperationId];

/** Filters and paging of `jobs.list`. */
export interface ListJobsParams {
  status?: JobStatus;
  operation?: ApiJob["operation"];
  /** RFC 3339; inclusive. */
  createdAfter?: string | Date;
  /** RFC 3339; exclusive. */
  createdBefore?: string | Date;
  /** 1 to 100; 20 by default. */
  limit?: number;
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** Include each job's outputs. */
  includeOutputs?: boolean;
}
