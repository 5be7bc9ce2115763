import { JobFailure } from "@octavo/engines";

const maxDetailChars = 4000;

/** Engine output trimmed for a log line (JobFailure.detail, never shown to the client). */
export function detailOf(...parts: (string | undefined)[]): string {
  const text = parts
    .filter((part) => part !== undefined && part !== "")
    .join("\n")
    .trim();
  // The end of a Python traceback says the most, so the tail is kept.
  return text.length <= maxDetailChars ? text : `…${text.slice(-maxDetailChars)}`;
}

/** The job was aborted (ctx.signal) or ran past its time: the spec's `timeout`. */
export function stopped(reason: unknown): JobFailure {
  return new JobFailure("timeout", "The OCR job took too long and was stopped; try a smaller file.", {
    detail: detailOf(String(reason)),
  });
}
