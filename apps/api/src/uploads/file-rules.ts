import { extname } from "node:path";
import { ApiError, type OperationSpec } from "@octavo/contracts";

/** The operation table's file rule: how many files, and which extensions (case-insensitive). */
export function checkFileRules(operation: OperationSpec, names: readonly string[]): void {
  const { min, max, extensions } = operation.files;
  const allowed = extensions.join(" ");
  const countRule = min === max ? `exactly ${min}` : `${min} to ${max}`;
  if (names.length < min || names.length > max) {
    throw new ApiError(
      "invalid_input",
      `${operation.title} takes ${countRule} file${max === 1 ? "" : "s"}; ${names.length} ${names.length === 1 ? "was" : "were"} sent.`,
      `files: ${countRule} of ${allowed}`,
    );
  }
  for (const name of names) {
    if (!extensions.includes(extname(name).toLowerCase())) {
      throw new ApiError(
        "invalid_input",
        `${name} is not a file type ${operation.title} accepts.`,
        `extension: must be one of ${allowed}`,
      );
    }
  }
}
