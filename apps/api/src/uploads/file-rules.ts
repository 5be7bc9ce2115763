import { extname } from "node:path";
import { ApiError, type OperationSpec } from "@octavo/contracts";
import type { NamedFile } from "./parse-operation-request.js";

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

/**
 * The named upload fields' rules (Sign PDF's `certificate`): each required one sent, none more often than it
 * may be, each with an extension it takes, and one that stands for an option sent instead of the option, not
 * beside it. They travel only in Form A, so a JSON body cannot carry a required one.
 */
export function checkNamedUploads(
  operation: OperationSpec,
  named: readonly NamedFile[],
  form: "multipart" | "json",
  options: Readonly<Record<string, unknown>>,
): void {
  for (const [field, upload] of Object.entries(operation.files.named ?? {})) {
    const files = named.filter((file) => file.field === field);
    const rule = `${field}: ${upload.max === 1 ? "one file" : `1 to ${upload.max} files`} of ${upload.extensions.join(" ")}`;
    if (upload.insteadOf !== undefined)
      checkInsteadOf(operation, field, upload.insteadOf, files.length, options);
    if (files.length === 0 && upload.required) {
      throw new ApiError(
        "invalid_input",
        form === "json"
          ? `${operation.title} needs a file uploaded in the field "${field}", which a JSON body cannot carry.`
          : `${operation.title} needs a file in the field "${field}": ${upload.description}`,
        form === "json" ? `Send multipart/form-data: the document as file or url, and ${rule}.` : rule,
      );
    }
    if (files.length > upload.max) {
      throw new ApiError(
        "invalid_input",
        `${operation.title} takes at most ${upload.max} file${upload.max === 1 ? "" : "s"} in the field "${field}"; ${files.length} were sent.`,
        rule,
      );
    }
    for (const { file } of files) {
      if (!upload.extensions.includes(extname(file.name).toLowerCase())) {
        throw new ApiError(
          "invalid_input",
          `${file.name} is not a file type the field "${field}" takes.`,
          `extension: must be one of ${upload.extensions.join(" ")}`,
        );
      }
    }
  }
}

/** A file that stands for an option (Generate's `data`): exactly one of the two. */
function checkInsteadOf(
  operation: OperationSpec,
  field: string,
  option: string,
  files: number,
  options: Readonly<Record<string, unknown>>,
): void {
  const sent = options[option] !== undefined;
  if (sent === files > 0) {
    throw new ApiError(
      "invalid_options",
      sent
        ? `Send ${operation.title}'s ${option} either as options.${option} or as a file in the field "${field}", not both.`
        : `${operation.title} needs its ${option}: send options.${option}, or a file in the field "${field}".`,
      `${option}: exactly one of options.${option} or the "${field}" upload`,
    );
  }
}
