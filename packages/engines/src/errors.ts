/** The spec's failed-job codes, and invalid_options for options only the document can refuse (Fill form). */
export type JobErrorCode =
  | "password_required"
  | "wrong_password"
  | "invalid_input"
  | "conversion_failed"
  | "no_tables"
  | "invalid_options"
  | "timeout";

/**
 * A job failure the client may see. `message` says what happened and what to do; `detail` holds engine
 * output for the logs and must never be shown to the client.
 */
export class JobFailure extends Error {
  override readonly name = "JobFailure";
  readonly code: JobErrorCode;
  readonly detail: string | undefined;

  constructor(
    code: JobErrorCode,
    message: string,
    options: { detail?: string | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = options.detail;
  }
}

const maxDetailChars = 4000;

function joined(parts: readonly (string | undefined)[]): string {
  return parts
    .filter((part) => part !== undefined && part !== "")
    .join("\n")
    .trim();
}

/** Engine output trimmed for a log line (JobFailure.detail, never shown to the client): its start. */
export function detailOf(...parts: (string | undefined)[]): string {
  const text = joined(parts);
  return text.length <= maxDetailChars ? text : `${text.slice(0, maxDetailChars)}…`;
}

/** The same, keeping the end: where a Python traceback says the most. */
export function tailDetailOf(...parts: (string | undefined)[]): string {
  const text = joined(parts);
  return text.length <= maxDetailChars ? text : `…${text.slice(-maxDetailChars)}`;
}

export function passwordRequired(fileName: string): JobFailure {
  return new JobFailure(
    "password_required",
    `${fileName} is encrypted; run the unlock operation with its password first, then try again with the unlocked file.`,
  );
}

export function stoppedFailure(reason: unknown): JobFailure {
  return new JobFailure("timeout", "The job took too long and was stopped; try a smaller file.", {
    detail: detailOf(String(reason)),
  });
}

/** Any error an engine throws becomes a JobFailure; unexpected ones keep their text in `detail` only. */
export function asJobFailure(error: unknown, fileName: string): JobFailure {
  if (error instanceof JobFailure) return error;
  return new JobFailure(
    "conversion_failed",
    `The PDF engines could not process ${fileName}. If the file opens in a PDF viewer, try the repair operation first.`,
    {
      detail: detailOf(error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
      cause: error,
    },
  );
}
