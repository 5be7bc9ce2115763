import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a checking tool (qpdf, pdftotext, pdfinfo, exiftool) directly, so tests judge outputs with
 * something other than the engine that wrote them; the exit code is part of the answer.
 */
export async function runTool(
  program: string,
  args: string[],
  maxBuffer = 256 * 1024 * 1024,
): Promise<ToolResult> {
  try {
    const { stdout, stderr } = await execFileAsync(program, args, { maxBuffer });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

/**
 * The error of class `kind` a promise rejects with; fails the test if it resolves or rejects with
 * anything else. The class is a parameter because a package's tests may load it from source or from
 * its build, two different classes to `instanceof`.
 */
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  kind: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, but the operation succeeded`);
}
