import which from "which";

/**
 * Where a program is: a name looked up on PATH, or a path checked as it is; undefined when nothing
 * executable is there. The one lookup behind doctor, the worker's offer and OCRmyPDF's interpreter.
 */
export function findProgram(program: string): string | undefined {
  return which.sync(program, { nothrow: true }) ?? undefined;
}
