/** A stream the CLI writes to; `isTTY` decides whether progress bars are drawn. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean };

/** Everything the CLI touches outside itself, so `main` runs in-process in tests. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
  /** Relative input and output paths resolve against it. */
  cwd: string;
}

/** The real process's streams, environment and working directory. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

export function writeLine(stream: OutputStream, line: string): void {
  stream.write(`${line}\n`);
}
