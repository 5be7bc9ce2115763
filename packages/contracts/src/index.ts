export {
  type Catalogue,
  type CatalogueEntry,
  catalogue,
  type EngineExport,
  type OperationClass,
  type ResidentEngine,
  type RunnerSpec,
  type SandboxReuse,
} from "./catalogue.js";
export { durationInWords } from "./durations.js";
export {
  ApiError,
  type ApiErrorCode,
  apiErrors,
  type JobErrorCode,
  jobErrorCodes,
  jobErrors,
} from "./errors.js";
export { type FormFieldReport, FormReport, formFieldTypes, formKinds } from "./form-report.js";
export { nestedDeeperThan } from "./json-depth.js";
export { type Lane, laneOf, queueConcurrency } from "./lanes.js";
export {
  apiKeyPrefixes,
  imageInputLimits,
  imageRenderLimits,
  inputLimits,
  serviceLimits,
  testModeLimits,
  webhookSignatureHeader,
} from "./limits.js";
export {
  MarkdownChunk,
  MarkdownDocument,
  MarkdownElement,
  type MarkdownElementType,
  markdownElementTypes,
} from "./markdown-document.js";
export { buildOpenApiDocument } from "./openapi/document.js";
export {
  isJobKind,
  isOperationId,
  type JobKind,
  jobKinds,
  type OperationId,
  operationIds,
  PIPELINE,
  perOperation,
} from "./operation-ids.js";
export {
  type FileRule,
  findOperationByPath,
  getOperation,
  type OperationSpec,
  operations,
} from "./operations.js";
export { maxGenerateItems } from "./options/generate.js";
export {
  type OcrLanguage,
  type OptionsOf,
  ocrLanguages,
  optionsSchemas,
  type PdfaLevel,
  pdfaLevels,
} from "./options/index.js";
export { RedactOptions, type RedactPreset, redactPresets } from "./options/redact.js";
export { type PageRange, pageRangesPattern, parsePageRanges } from "./page-ranges.js";
export {
  MAX_PIPELINE_STEPS,
  type OperationOutput,
  operationOutputs,
  PIPELINE_PATH,
  type PipelineContext,
  type PipelineStep,
  type PipelineValidation,
  validatePipelineSteps,
} from "./pipelines.js";
export { bytesPerMB, type Plan, type PlanId, planIds, plans } from "./plans.js";
export {
  Account,
  ErrorBody,
  Job,
  JobCreated,
  JobList,
  type JobStatus,
  JobStep,
  jobStatuses,
  Output,
} from "./resources.js";
export { type JsonSchema, toJsonSchema } from "./schema-helpers.js";
export { SignatureEntry, SignatureReport } from "./signature-report.js";
export { type OptionsValidation, optionsJsonSchema, validateOptions } from "./validate-options.js";
export {
  type ClassQueue,
  isWorkerClass,
  queuesOfClass,
  WEBHOOK_QUEUE,
  type WorkerClass,
  workerClasses,
  workerClassOf,
} from "./worker-classes.js";
