import { extname } from "node:path";
import { ApiError, type OperationSpec } from "@octavo/contracts";

function countRule(operation: OperationSpec): string {
  const { min, max, extensions } = operation.files;
  const count = min === max ? `exactly ${min}` : `${min} to ${max}`;
  return `files: ${count} of ${extensions.join(" ")}`;
}

/**
 * The operation table's count rule, checked before any URL is downloaded. HTML to PDF takes exactly
 * one page: an uploaded file or options.url, not both and not neither.
 */
export function checkFileCount(operation: OperationSpec, count: number, hasPageUrl: boolean): void {
  if (operation.id === "html-to-pdf" && count + (hasPageUrl ? 1 : 0) !== 1) {
    throw new ApiError(
      "invalid_input",
      hasPageUrl
        ? "Send either an HTML file or options.url, not both."
        : "Send an HTML file, or the page's address in options.url.",
      "files: exactly one of a .html/.htm file or options.url",
    );
  }
  const { min, max } = operation.files;
  if (count < min || count > max) {
    throw new ApiError(
      "invalid_input",
      `${operation.title} takes ${min === max ? `exactly ${min}` : `${min} to ${max}`} file${max === 1 ? "" : "s"}; ${count} ${count === 1 ? "was" : "were"} sent.`,
      countRule(operation),
    );
  }
}

/** The extension rule (case-insensitive), once every input has its name. */
export function checkFileNames(operation: OperationSpec, names: readonly string[]): void {
  const { extensions } = operation.files;
  for (const name of names) {
    if (!extensions.includes(extname(name).toLowerCase())) {
      throw new ApiError(
        "invalid_input",
        `${name} is not a file type ${operation.title} accepts.`,
        `extension: must be one of ${extensions.join(" ")}`,
      );
    }
  }
}
