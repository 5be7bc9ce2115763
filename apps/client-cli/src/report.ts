import { OctavoError } from "@octavo/client";
import { type CliIo, writeLine } from "./io.js";

/** The program's name, before every message on stderr. */
export const programName = "octavo-client";

/** A job's outcome or an error as the user sees it; machine output with --json. */
export interface Reporter {
  readonly json: boolean;
  readonly quiet: boolean;
  /** A line of results for stdout (held back while progress bars are drawn). */
  result(line: string): void;
  /** One JSON line on stdout (--json). */
  jsonLine(value: unknown): void;
  /** A message on stderr, e.g. a warning; skipped with --quiet. */
  notice(line: string): void;
  /** A message on stderr that --quiet does not silence, e.g. a failed job. */
  alert(line: string): void;
  /** One line on stderr for an error; a JSON line on stdout too for an API error with --json. */
  error(error: unknown, context?: string): void;
  /** Writes what was held back. */
  flush(): void;
}

/** The error as one line: the message, the detail, and the request id to quote to support. */
export function errorLine(error: unknown, context?: string): string {
  const prefix = context === undefined ? `${programName}: ` : `${programName}: ${context}: `;
  if (error instanceof OctavoError) {
    const message = error.message.replace(/\.$/, "");
    const detail = error.detail ? `: ${error.detail}` : "";
    const request = error.requestId ? ` (request id ${error.requestId})` : "";
    return `${prefix}${message}${detail}${request}`;
  }
  return `${prefix}${error instanceof Error ? error.message : String(error)}`;
}

/** The JSON line of a refused request (--json): the API's error body with the HTTP status. */
export function errorJson(error: OctavoError): Record<string, unknown> {
  return {
    error: error.error,
    message: error.message,
    detail: error.detail ?? "",
    status: error.status ?? null,
    requestId: error.requestId ?? null,
  };
}

/**
 * The reporter of a command. `stderrLine` writes a line on stderr: the progress display passes its own,
 * which prints above the bars while they are drawn.
 */
export function createReporter(
  io: CliIo,
  settings: { json: boolean; quiet: boolean; holdResults?: boolean },
  stderrLine: (line: string) => void = (line) => writeLine(io.stderr, line),
): Reporter {
  const held: string[] = [];
  return {
    json: settings.json,
    quiet: settings.quiet,
    result(line) {
      if (settings.quiet || settings.json) return;
      if (settings.holdResults === true) held.push(line);
      else writeLine(io.stdout, line);
    },
    jsonLine(value) {
      writeLine(io.stdout, JSON.stringify(value));
    },
    notice(line) {
      if (!settings.quiet) stderrLine(`${programName}: ${line}`);
    },
    alert(line) {
      stderrLine(`${programName}: ${line}`);
    },
    error(error, context) {
      stderrLine(errorLine(error, context));
      if (settings.json && error instanceof OctavoError) {
        writeLine(
          io.stdout,
          JSON.stringify({ ...errorJson(error), ...(context === undefined ? {} : { input: context }) }),
        );
      }
    },
    flush() {
      for (const line of held.splice(0)) writeLine(io.stdout, line);
    },
  };
}
