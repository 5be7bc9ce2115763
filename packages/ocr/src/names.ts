import { JobFailure, tailDetailOf } from "@octavo/engines";

/** OCRmyPDF's output for a log line: the end of a Python traceback says the most. */
export const detailOf = tailDetailOf;

/** The job was aborted (ctx.signal) or ran past its time: the spec's `timeout`. */
export function stopped(reason: unknown): JobFailure {
  return new JobFailure("timeout", "The OCR job took too long and was stopped; try a smaller file.", {
    detail: detailOf(String(reason)),
  });
}
