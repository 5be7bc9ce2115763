export { durationInWords } from "./durations.js";
export {
  ApiError,
  type ApiErrorCode,
  apiErrors,
  type JobErrorCode,
  jobErrorCodes,
  jobErrors,
} from "./errors.js";
export { type Lane, operationLanes, queueConcurrency } from "./lanes.js";
export { apiKeyPrefix, inputLimits, serviceLimits, webhookSignatureHeader } from "./limits.js";
export { buildOpenApiDocument } from "./openapi/document.js";
export { isOperationId, type OperationId, operationIds } from "./operation-ids.js";
export {
  type FileRule,
  findOperationByPath,
  getOperation,
  type OperationSpec,
  operations,
} from "./operations.js";
export {
  type OcrLanguage,
  type OptionsOf,
  ocrLanguages,
  optionsSchemas,
  type PdfaLevel,
  pdfaLevels,
} from "./options/index.js";
export { type PageRange, pageRangesPattern, parsePageRanges } from "./page-ranges.js";
export { bytesPerMB, type Plan, type PlanId, planIds, plans } from "./plans.js";
export {
  Account,
  ErrorBody,
  Job,
  JobCreated,
  JobList,
  type JobStatus,
  jobStatuses,
  Output,
} from "./resources.js";
export { type JsonSchema, toJsonSchema } from "./schema-helpers.js";
export { type OptionsValidation, optionsJsonSchema, validateOptions } from "./validate-options.js";
