import { type Static, Type } from "@sinclair/typebox";
import { jobErrorCodes } from "./errors.js";
import { FormReport } from "./form-report.js";
import { jobKinds, operationIds } from "./operation-ids.js";
import { planIds } from "./plans.js";
import { SignatureReport } from "./signature-report.js";

/*
 * Response bodies as TypeBox schemas. Literal unions rather than `enum` here, so TypeBox's own
 * Value and TypeCompiler modules can check and clean these objects too.
 */

function literals<const V extends readonly string[]>(values: V, description: string) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );
}

const dateTime = (description: string) => Type.String({ format: "date-time", description });
const count = (description: string) => Type.Integer({ minimum: 0, description });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "Stable error code, e.g. invalid_options." }),
    message: Type.String({ description: "A sentence for people." }),
    detail: Type.String({
      description: 'More detail, or "". For invalid_options it names the option and what it allows.',
    }),
    requestId: Type.Optional(
      Type.String({
        description: "The request's id (also in the X-Request-Id header); quote it when asking for help.",
      }),
    ),
  },
  { description: "Every error response has this body." },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const JobCreated = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "Job identifier." }),
    status: Type.Literal("queued", { description: "Always queued at creation." }),
    credits: count("Credits the job costs if it succeeds."),
    statusUrl: Type.String({ format: "uri", description: "Address of GET /v1/jobs/{job_id}." }),
  },
  { description: "The 202 answer of every operation endpoint." },
);
export type JobCreated = Static<typeof JobCreated>;

export const Output = Type.Object(
  {
    name: Type.String({ description: "File name of the result." }),
    size: count("Size in bytes."),
    contentType: Type.String({ description: "MIME type, for example application/pdf." }),
    url: Type.Optional(
      Type.String({
        format: "uri",
        description: "Signed download link, valid 15 minutes. Present while the result exists.",
      }),
    ),
    urlExpiresAt: Type.Optional(dateTime("When url stops working.")),
    expired: Type.Boolean({
      description:
        "True once the result has been deleted (one hour after the job, or at the caller's request); url is then absent.",
    }),
    deleted: Type.Optional(
      Type.Literal(true, {
        description:
          "Present, true, when the result was deleted at the caller's request (DELETE /v1/jobs/{job_id}).",
      }),
    ),
  },
  { description: "One result file of a done job." },
);
export type Output = Static<typeof Output>;

export const jobStatuses = ["queued", "active", "done", "failed"] as const;
export type JobStatus = (typeof jobStatuses)[number];

export const JobStep = Type.Object(
  {
    operation: literals(operationIds, "The step's operation."),
    status: literals(jobStatuses, "queued until it starts, then active, then done or failed."),
    startedAt: Type.Optional(dateTime("When the step started, in the pipeline's latest run.")),
    finishedAt: Type.Optional(dateTime("When the step ended.")),
    error: Type.Optional(literals(jobErrorCodes, "Why the step failed; present when failed.")),
  },
  { description: "One step of a pipeline job (POST /v1/pipeline), in order." },
);
export type JobStep = Static<typeof JobStep>;

export const Job = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "Job identifier." }),
    status: literals(jobStatuses, "queued, active, done or failed."),
    progress: Type.Number({ minimum: 0, maximum: 1, description: "From 0 to 1; 1 when done." }),
    operation: literals(jobKinds, "The operation the job runs; pipeline for a job of POST /v1/pipeline."),
    credits: count("Credits the job costs if it succeeds; a failed job costs nothing."),
    livemode: Type.Boolean({
      description:
        "false for a job of a test key (svc_test_…): it runs the real engines but is never charged, and only the account's test keys see it; true for a live key's job.",
    }),
    createdAt: dateTime("When the job was accepted."),
    startedAt: Type.Optional(dateTime("When the job started running.")),
    finishedAt: Type.Optional(dateTime("When the job ended, done or failed.")),
    outputs: Type.Optional(
      Type.Array(Output, { description: "The results (a pipeline's: its last step's); present when done." }),
    ),
    steps: Type.Optional(
      Type.Array(JobStep, {
        description: "A pipeline job's steps, in order, each with its status; present on pipeline jobs only.",
      }),
    ),
    error: Type.Optional(
      literals(jobErrorCodes, "Why the job failed; present when failed. canceled: the caller canceled it."),
    ),
    message: Type.Optional(
      Type.String({ description: "A sentence about the failure; present when failed." }),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "Things worth knowing about a done job, e.g. that a damaged input was reconstructed or that a compression target could not be reached.",
      }),
    ),
    compression: Type.Optional(
      Type.Object(
        {
          inputBytes: count("Size of the input."),
          outputBytes: count("Size of the result."),
          ratio: Type.Number({ minimum: 0, description: "outputBytes / inputBytes." }),
          setting: Type.String({
            description:
              'The setting that made the result, e.g. "recommended: images ≤ 150 dpi, JPEG quality 70".',
          }),
          targetKB: Type.Optional(count("The targetKB option, when given.")),
          targetMet: Type.Optional(
            Type.Boolean({
              description:
                "Whether the result is under targetKB; false means the smallest result is returned.",
            }),
          ),
        },
        { description: "Compress jobs only: what the compression achieved." },
      ),
    ),
    redaction: Type.Optional(
      Type.Object(
        {
          pages: Type.Array(
            Type.Object(
              {
                page: Type.Integer({ minimum: 1, description: "The page, 1-based." }),
                matches: Type.Record(Type.String(), count("Matches removed on the page by this rule."), {
                  description:
                    'Matches removed on the page, by rule: "text[0]" for options.text[0], "patterns[1]" for ' +
                    'options.patterns[1], a preset by its name ("email"). Rules without a match are left out.',
                }),
                areas: count("Areas of options.areas cleared on the page."),
                hiddenText: Type.Optional(
                  count(
                    "Glyphs of hidden text sanitize removed from the page (outside the crop box, invisible, white " +
                      "on white, under an opaque image or box); present when any was.",
                  ),
                ),
              },
              { description: "A page where something was removed." },
            ),
            { description: "The pages where something was removed, in order; the others are left out." },
          ),
          total: count("Matches and areas removed in the whole document."),
        },
        {
          description: "Redact jobs only: what was removed where, as counts; never the text that matched.",
        },
      ),
    ),
    form: Type.Optional(
      Type.Object(FormReport.properties, {
        additionalProperties: false,
        description: "Read form jobs only: the report, also downloadable as fields.json.",
      }),
    ),
    verification: Type.Optional(
      Type.Object(SignatureReport.properties, {
        additionalProperties: false,
        description: "Verify signatures jobs only: the report, also downloadable as report.json.",
      }),
    ),
  },
  {
    description:
      "A job, as GET /v1/jobs/{job_id} returns it, as the webhook body, and as the items of GET /v1/jobs (there without outputs unless include=outputs).",
  },
);
export type Job = Static<typeof Job>;

export const JobList = Type.Object(
  {
    data: Type.Array(Job, {
      description:
        "The jobs of the page, newest first. Outputs are left out unless the request asked for them with include=outputs.",
    }),
    hasMore: Type.Boolean({ description: "Whether more jobs follow this page." }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: "Pass as cursor to read the next page; null on the last page.",
    }),
  },
  { description: "A page of the caller's jobs, as GET /v1/jobs returns it." },
);
export type JobList = Static<typeof JobList>;

export const Account = Type.Object(
  {
    id: Type.String({ description: "Account identifier." }),
    email: Type.String({ format: "email", description: "The account's email address." }),
    plan: literals(planIds, "The plan: free, starter, pro or business."),
    creditsIncluded: count("Credits the plan includes this period."),
    creditsUsed: count("Credits charged this period for successful jobs."),
    creditsReserved: count("Credits held by jobs still queued or running."),
    creditsRemaining: count("Included credits neither used nor reserved."),
    overageCredits: count("Credits used past the included ones this period (paid plans)."),
    overageCostUsd: Type.Number({ minimum: 0, description: "What the overage credits cost so far, in USD." }),
    periodStart: dateTime("Start of the current period (a calendar month on the Free plan)."),
    periodEnd: dateTime("End of the current period."),
    limits: Type.Object(
      {
        requestsPerMinute: count("Requests allowed per minute."),
        maxFileBytes: count("Largest file accepted, in bytes."),
        webhooks: Type.Boolean({ description: "Whether webhook_url may be used." }),
      },
      { description: "The plan's limits." },
    ),
  },
  { description: "The plan and credit balance of the calling account." },
);
export type Account = Static<typeof Account>;
