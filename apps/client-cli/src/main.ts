import { CommanderError } from "commander";
import { ExitCode, exitCodeFor } from "./exit-codes.js";
import { type CliIo, processIo, writeLine } from "./io.js";
import { buildProgram } from "./program.js";
import { errorLine } from "./report.js";

export type { CliIo } from "./io.js";
export { processIo } from "./io.js";

/** Help and --version end a run successfully; every other commander error is a usage error. */
function commanderExitCode(error: CommanderError): ExitCode {
  return error.code === "commander.helpDisplayed" || error.code === "commander.version"
    ? ExitCode.ok
    : ExitCode.usage;
}

/**
 * Runs `octavo-client` with the arguments after the program name and returns the exit code, writing
 * only to `io`: the bin script passes the process's, tests their own.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return commanderExitCode(error);
    writeLine(io.stderr, errorLine(error));
    return exitCodeFor(error);
  }
  return exitCode;
}
