import { realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import type { FileInput } from "@octavo/client";
import { ToolFailure } from "./results.js";

const urlPattern = /^https?:\/\//i;

/** The directories local paths may be in, resolved (symbolic links followed) once at start. */
export async function resolveRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map((root) => realpath(resolve(root))));
}

/**
 * A tool's file argument as the SDK's input: a URL the service fetches, or a local file inside one of
 * `roots` (its real path, so a link out of a root is refused like a path out of it). `roots` undefined:
 * this server reads no local file (HTTP mode).
 */
export async function fileInput(
  value: unknown,
  roots: readonly string[] | undefined,
  field?: string,
): Promise<FileInput> {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ToolFailure("invalid_arguments", "Each file must be a non-empty string: a path or a URL.");
  }
  if (urlPattern.test(value) && field === undefined) return { url: value };
  if (roots === undefined) {
    throw new ToolFailure(
      "path_not_allowed",
      `${value} is not an http(s) URL; this server reads no local file.`,
    );
  }
  const real = await realpath(resolve(value)).catch(() => {
    throw new ToolFailure("input_not_found", `${value} does not exist or cannot be read.`);
  });
  if (roots.length === 0) {
    throw new ToolFailure(
      "path_not_allowed",
      `${value} is a local path, and this server may read none: start it with --root DIR, or pass a URL.`,
    );
  }
  if (!roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`))) {
    throw new ToolFailure(
      "path_outside_root",
      `${value} is outside the directories this server may read (${roots.join(", ")}); move the file there or pass a URL.`,
    );
  }
  return field === undefined ? { path: real } : { path: real, field };
}
