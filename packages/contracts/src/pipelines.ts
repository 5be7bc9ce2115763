import { catalogue, type OperationOutput } from "./catalogue.js";
import { isOperationId, type OperationId, operationIds, perOperation } from "./operation-ids.js";
import { getOperation } from "./operations.js";
import { validateOptions } from "./validate-options.js";

/*
 * The `steps` of POST /v1/pipeline: each step's outputs are the next step's inputs, in order, and the
 * job's outputs are the last step's. A chain that cannot run is refused here, before any credit is
 * held, with a detail that names the step and why. The request's own files are checked against the
 * first step's FileRule by the API, not here.
 */

export const MAX_PIPELINE_STEPS = 5;

/** The endpoint that takes a pipeline. */
export const PIPELINE_PATH = "/v1/pipeline";

export type { OperationOutput } from "./catalogue.js";

/** What each operation yields, from its catalogue entry. */
export const operationOutputs = perOperation<OperationOutput>((id) => catalogue[id].output);

/** pdf-to-image's `format` decides its files' extension. */
const imageExtensions: Readonly<Record<string, string>> = { png: ".png", jpeg: ".jpg", webp: ".webp" };

/** The extension of the files a step yields, which for some operations its options decide. */
export function stepOutputExtension(step: PipelineStep): string {
  const fixed = operationOutputs[step.operation].extension;
  if (step.operation !== "pdf-to-image") return fixed;
  return imageExtensions[String(step.options.format)] ?? fixed;
}

export interface PipelineStep {
  operation: OperationId;
  /** Validated, with the operation's defaults applied. */
  options: Record<string, unknown>;
}

export type PipelineValidation =
  | { ok: true; steps: PipelineStep[]; credits: number }
  | { ok: false; detail: string };

export interface PipelineContext {
  /** The number of files of the request; without it, what per-input steps yield is unknown. */
  inputCount?: number | undefined;
}

/** Operations that only read the request: the reason names what they read instead of a step's output. */
const firstStepOnly: Partial<Record<OperationId, string>> = {
  "html-to-pdf": "it renders the page or URL of the request, not another step's output",
};

/** Operations whose output is encrypted, and the only operations that can read it. */
const encryptedOutputReaders: Partial<Record<OperationId, readonly OperationId[]>> = {
  protect: ["unlock"],
};

const stepKeys: readonly string[] = ["operation", "options"];

type Checked<T> = { ok: true; value: T } | { ok: false; detail: string };

function refuse(detail: string): { ok: false; detail: string } {
  return { ok: false, detail };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function at(index: number): string {
  return `steps[${index}]`;
}

/** Echoes a client's string in a detail, cut short so a huge value does not make a huge answer. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function inWords(extensions: readonly string[]): string {
  if (extensions.length <= 1) return extensions.join("");
  return `${extensions.slice(0, -1).join(", ")} or ${extensions.at(-1)}`;
}

// ── One step on its own ────────────────────────────────────────────────────────────────────────────

/** Clients often send the endpoint's path ("/v1/merge", "convert/word-to-pdf"): its last part is the id. */
function idMeantBy(text: string): OperationId | undefined {
  const lastPart = text.trim().toLowerCase().split("/").filter(Boolean).at(-1) ?? "";
  return isOperationId(lastPart) ? lastPart : undefined;
}

function checkOperation(raw: unknown, where: string): Checked<OperationId> {
  const ids = operationIds.join(", ");
  if (raw === undefined) return refuse(`${where}: is required, one of ${ids}`);
  if (typeof raw !== "string") return refuse(`${where}: must be a string, one of ${ids}`);
  if (isOperationId(raw)) return { ok: true, value: raw };
  const meant = idMeantBy(raw);
  if (meant !== undefined) return refuse(`${where}: ${quoted(raw)} is not an operation id; use "${meant}"`);
  return refuse(`${where}: ${quoted(raw)} is not an operation id; use one of ${ids}`);
}

/** validateOptions speaks of "options: ..." or "<option>: ..."; in a step both sit under steps[i].options. */
function underStepOptions(where: string, detail: string): string {
  return detail.startsWith("options:") ? `${where}.${detail}` : `${where}.options.${detail}`;
}

function checkStep(raw: unknown, index: number): Checked<PipelineStep> {
  const where = at(index);
  if (!isPlainObject(raw)) {
    return refuse(`${where}: must be a JSON object such as {"operation": "compress", "options": {}}`);
  }
  const unknownKey = Object.keys(raw).find((key) => !stepKeys.includes(key));
  if (unknownKey !== undefined) {
    return refuse(`${where}.${unknownKey}: is not a step field; a step has only operation and options`);
  }
  const operation = checkOperation(raw.operation, `${where}.operation`);
  if (!operation.ok) return operation;
  const upload = requiredUploadOf(operation.value);
  if (upload !== undefined) {
    return refuse(
      `${where}: ${operation.value} needs a file in its own upload field (${upload}), which a pipeline does ` +
        `not take; run it as a job of its own on the pipeline's output (POST ${getOperation(operation.value).path})`,
    );
  }
  const options = validateOptions(operation.value, raw.options);
  if (!options.ok) return refuse(underStepOptions(where, options.detail));
  return { ok: true, value: { operation: operation.value, options: options.value } };
}

/** The first named upload an operation cannot run without (Sign PDF's certificate), if it has one. */
function requiredUploadOf(operation: OperationId): string | undefined {
  const named = getOperation(operation).files.named ?? {};
  return Object.entries(named).find(([, upload]) => upload.required)?.[0];
}

// ── A step after the one before it ─────────────────────────────────────────────────────────────────

/** How many files a step passes on; when unknown, why, so a step that needs a count can say so. */
type FileCount = { known: true; files: number } | { known: false; because: string };

interface ChainedStep {
  readonly index: number;
  readonly operation: OperationId;
}

interface StepYield extends ChainedStep {
  readonly count: FileCount;
  readonly extension: string;
}

/** A compatibility rule: why `step` cannot read what `previous` yields, or undefined when it can. */
type ChainRule = (step: ChainedStep, previous: StepYield) => string | undefined;

function describe(step: ChainedStep): string {
  return `${at(step.index)} (${step.operation})`;
}

function mustComeFirst(step: ChainedStep): string | undefined {
  const reason = firstStepOnly[step.operation];
  return reason === undefined ? undefined : `${step.operation} can only be the first step: ${reason}`;
}

function readsTheExtension(step: ChainedStep, previous: StepYield): string | undefined {
  const accepted = getOperation(step.operation).files.extensions;
  const yielded = previous.extension;
  if (accepted.includes(yielded)) return undefined;
  return `${step.operation} takes ${inWords(accepted)} files, and ${describe(previous)} yields ${yielded}`;
}

function readsTheEncryption(step: ChainedStep, previous: StepYield): string | undefined {
  const readers = encryptedOutputReaders[previous.operation];
  if (readers === undefined || readers.includes(step.operation)) return undefined;
  return (
    `${step.operation} cannot read the encrypted output of ${previous.operation} (${at(previous.index)}); ` +
    `put ${previous.operation} last`
  );
}

function whyCountIsUnknown(previous: StepYield, because: string): string {
  // A step yielding "several" is itself the reason; a per-input step only passes an unknown count on.
  if (operationOutputs[previous.operation].count === "several") return because;
  return `${describe(previous)} yields an unknown number: one per file it receives, and ${because}`;
}

function countInWords(files: number): string {
  if (files === 0) return "none";
  return files === 1 ? "one" : String(files);
}

/** A step whose FileRule allows several files takes them all at once, so their number must fit it. */
function receivesAFittingCount(step: ChainedStep, previous: StepYield): string | undefined {
  const { min, max } = getOperation(step.operation).files;
  if (max <= 1) return undefined; // a one-file operation runs once per file it receives
  const needs = `${step.operation} needs ${min} to ${max} files`;
  const count = previous.count;
  if (!count.known) return `${needs} and ${whyCountIsUnknown(previous, count.because)}`;
  if (count.files >= min && count.files <= max) return undefined;
  return `${needs} and ${describe(previous)} yields ${countInWords(count.files)}`;
}

/** In the order they are checked: the first that fails is the one reported. */
const chainRules: readonly ChainRule[] = [
  mustComeFirst,
  readsTheExtension,
  readsTheEncryption,
  receivesAFittingCount,
];

function chainProblem(step: ChainedStep, previous: StepYield): string | undefined {
  for (const rule of chainRules) {
    const problem = rule(step, previous);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function countYielded(step: ChainedStep, received: FileCount): FileCount {
  switch (operationOutputs[step.operation].count) {
    case "one":
      return { known: true, files: 1 };
    case "several":
      return { known: false, because: `${describe(step)} yields an unknown number of files` };
    case "per-input":
      return received;
  }
}

function requestCount(inputCount: number | undefined): FileCount {
  if (inputCount === undefined) return { known: false, because: "the number of input files is not known" };
  if (!Number.isSafeInteger(inputCount) || inputCount < 0) {
    throw new RangeError(`inputCount must be a whole number of files, not ${inputCount}`);
  }
  return { known: true, files: inputCount };
}

// ── The whole chain ────────────────────────────────────────────────────────────────────────────────

function checkStepsArray(raw: unknown): Checked<readonly unknown[]> {
  const expected = `steps: must be an array of 1 to ${MAX_PIPELINE_STEPS} steps`;
  if (!Array.isArray(raw)) return refuse(expected);
  if (raw.length === 0) return refuse(`${expected}; it is empty`);
  if (raw.length > MAX_PIPELINE_STEPS) return refuse(`${expected}; it has ${raw.length}`);
  return { ok: true, value: raw };
}

function creditsOf(steps: readonly PipelineStep[]): number {
  return steps.reduce((sum, step) => sum + getOperation(step.operation).credits, 0);
}

/**
 * Checks `steps` of POST /v1/pipeline: each step's shape and options (defaults applied), then that
 * each step can read what the one before it yields. Credits are the sum of the steps' credits.
 * Throws a RangeError only for an `inputCount` that is not a whole number, a caller's mistake.
 */
export function validatePipelineSteps(raw: unknown, context: PipelineContext = {}): PipelineValidation {
  const requestFiles = requestCount(context.inputCount);
  const rawSteps = checkStepsArray(raw);
  if (!rawSteps.ok) return rawSteps;
  const steps: PipelineStep[] = [];
  let previous: StepYield | undefined;
  for (const [index, rawStep] of rawSteps.value.entries()) {
    const checked = checkStep(rawStep, index);
    if (!checked.ok) return checked;
    const step: ChainedStep = { index, operation: checked.value.operation };
    const problem = previous === undefined ? undefined : chainProblem(step, previous);
    if (problem !== undefined) return refuse(`${at(index)}: ${problem}`);
    steps.push(checked.value);
    previous = {
      ...step,
      count: countYielded(step, previous?.count ?? requestFiles),
      extension: stepOutputExtension(checked.value),
    };
  }
  return { ok: true, steps, credits: creditsOf(steps) };
}
