import type { OperationId } from "./types.js";

/** One option of an operation, reduced from its JSON Schema. */
export interface OptionInfo {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "array" | "object";
  readonly required: boolean;
  readonly description: string;
  readonly enum?: readonly (string | number)[];
  readonly items?: { readonly type: string; readonly enum?: readonly string[] };
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: unknown;
}

/** One operation endpoint of the API. */
export interface OperationInfo {
  readonly id: OperationId;
  /** The SDK method: "merge", or "convert.wordToPdf" for a conversion. */
  readonly method: string;
  /** The POST path, e.g. "/v1/convert/word-to-pdf". */
  readonly path: string;
  readonly title: string;
  readonly description: string;
  /** Credits charged when a job succeeds. */
  readonly credits: number;
  /** How many input files a job takes, and their extensions (".pdf"). */
  readonly files: { readonly min: number; readonly max: number; readonly extensions: readonly string[] };
  readonly options: readonly OptionInfo[];
}
