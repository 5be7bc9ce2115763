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

/** A file an operation takes in an upload field of its own, beside the documents it processes. */
export interface NamedUploadInfo {
  readonly description: string;
  readonly required: boolean;
  readonly max: number;
  readonly extensions: readonly string[];
  /** The option the file may be sent instead of (Generate's data): exactly one of the two. */
  readonly insteadOf?: string;
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
  /**
   * How many input files a job takes, and their extensions (".pdf"); `named`: the files it takes in upload
   * fields of their own (Sign PDF's `certificate`).
   */
  readonly files: {
    readonly min: number;
    readonly max: number;
    readonly extensions: readonly string[];
    readonly named?: Readonly<Record<string, NamedUploadInfo>>;
  };
  readonly options: readonly OptionInfo[];
}
