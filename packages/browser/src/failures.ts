import { JobFailure } from "@octavo/engines";
import { OutboundError } from "@octavo/net";

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export function renderTimeout(timeoutMs: number): JobFailure {
  return new JobFailure(
    "timeout",
    `The page did not finish rendering within ${seconds(timeoutMs)} and was stopped; ` +
      "make it lighter (fewer or smaller resources, less script) and try again.",
  );
}

export function jobStopped(reason: unknown): JobFailure {
  return new JobFailure("timeout", "The job took too long and was stopped; try a lighter page.", {
    detail: String(reason),
  });
}

export function browserGone(detail: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    "The browser stopped while rendering this page; try again, and make the page lighter if it keeps failing.",
    { detail },
  );
}

export function tooManyPages(maxPages: number): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `The page prints to more than ${maxPages} pages, the limit for one conversion; ` +
      "split the content into several pages or hide what need not be printed.",
  );
}

export function pageTooHeavy(maxBytes: number): JobFailure {
  const mb = Math.round(maxBytes / 100_000) / 10;
  return new JobFailure(
    "conversion_failed",
    `The page loaded more than ${mb} MB (images, fonts, scripts and all), the limit for one conversion; ` +
      "render a lighter page.",
  );
}

/** The page address itself (or a redirect it answered with) is refused by the outbound policy. */
export function refusedPage(error: OutboundError): JobFailure {
  const what = error.code === "blocked_url" ? "is not allowed" : "could not be reached";
  return new JobFailure("conversion_failed", `The page address ${what}: ${error.detail}`, { cause: error });
}

export function pageNotLoaded(why: string, detail?: string): JobFailure {
  return new JobFailure("conversion_failed", `The page could not be loaded: ${why}.`, { detail });
}

export function unreadableInput(name: string, cause: unknown): JobFailure {
  return new JobFailure("invalid_input", `${name} could not be read.`, { detail: String(cause), cause });
}

/** A failure with a detail only the logs see, for anything the code above did not foresee. */
export function renderFailed(error: unknown): JobFailure {
  if (error instanceof JobFailure) return error;
  if (error instanceof OutboundError) return refusedPage(error);
  return new JobFailure("conversion_failed", "The browser could not render this page.", {
    detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    cause: error,
  });
}
