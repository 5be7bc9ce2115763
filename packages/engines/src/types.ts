/** A local input file; `name` is the client's file name, e.g. "report.pdf". */
export interface EngineInput {
  path: string;
  name: string;
  /** The named upload field it came in (Sign PDF's `certificate`); absent for the documents to process. */
  field?: string;
}

export interface EngineOutput {
  path: string;
  name: string;
  contentType: string;
}

export interface EngineContext {
  /** Outputs and scratch files go inside this directory. */
  workDir: string;
  /** Aborting stops the running engine and fails the operation with `timeout`. */
  signal?: AbortSignal;
  /** Called with 0..1 as work advances. */
  onProgress?: (fraction: number) => void;
}

export interface EngineResult {
  outputs: EngineOutput[];
  /** The engine (or chain of engines) that produced the outputs, e.g. "qpdf" or "mupdf". */
  engine: string;
  /** Things the client may want to know, e.g. that a damaged input was reconstructed. */
  warnings: string[];
}

export const pdfContentType = "application/pdf";
