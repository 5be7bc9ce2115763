import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CappedText } from "./capped-text.js";

/** Limits every spawned engine gets unless the caller says otherwise. */
export const runDefaults = {
  timeoutMs: 120_000,
  memoryBytes: 2 * 1024 ** 3,
  maxOutputBytes: 256 * 1024,
} as const;

export interface RunSecrets {
  /** Directory for the 0600 secret files, normally the job's work dir. */
  dir: string;
  /** Each value is written to its own file; `{{name}}` in an argument becomes that file's path. */
  files: Record<string, string>;
}

export interface RunOptions {
  /** Kill the whole process group after this long (default 120 s). */
  timeoutMs?: number;
  /** Aborting kills the whole process group. */
  signal?: AbortSignal | undefined;
  /** Address-space limit through `prlimit --as`; `null` runs without prlimit (default 2 GiB). */
  memoryBytes?: number | null;
  /** CPU-seconds limit through `prlimit --cpu` (default: the timeout, rounded up). */
  cpuSeconds?: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted and dropped (default 256 KiB). */
  maxOutputBytes?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Secrets passed as files instead of argv, which any local user can read in /proc. */
  secrets?: RunSecrets;
}

export interface RunResult {
  /** Null when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** It ran over its time: the timeout on the clock, or the CPU-time limit (SIGXCPU). */
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

/** A program the engines ran, as a job's trace shows it: its name (no arguments, no file), when, and how it ended. */
export interface ProgramRun {
  program: string;
  /** ms since the epoch */
  start: number;
  end: number;
  exitCode: number | null;
}

const programRunListeners = new Set<(run: ProgramRun) => void>();

/** Hears of every program run() ends; returns the way to stop (the sandbox reports a job's runs with its result). */
export function onProgramRun(listener: (run: ProgramRun) => void): () => void {
  programRunListeners.add(listener);
  return () => programRunListeners.delete(listener);
}

/**
 * The one place that starts a process. The program runs in its own process group under prlimit, so a
 * timeout or an abort can kill it and everything it started, and a hostile file cannot eat the machine.
 */
export async function run(
  program: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const secretPaths = options.secrets ? await writeSecrets(options.secrets) : {};
  const start = Date.now();
  let exitCode: number | null = null;
  try {
    const finalArgs = args.map((arg) => fillSecretPlaceholders(arg, secretPaths));
    const result = await spawnLimited(program, finalArgs, options);
    exitCode = result.exitCode;
    return result;
  } finally {
    const name = program.slice(program.lastIndexOf("/") + 1);
    for (const listener of programRunListeners) listener({ program: name, start, end: Date.now(), exitCode });
    await Promise.all(Object.values(secretPaths).map((path) => rm(path, { force: true })));
  }
}

function spawnLimited(program: string, args: string[], options: RunOptions): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? runDefaults.timeoutMs;
  const memoryBytes = options.memoryBytes === undefined ? runDefaults.memoryBytes : options.memoryBytes;
  const cpuSeconds = options.cpuSeconds ?? Math.ceil(timeoutMs / 1000);
  const [command, commandArgs] =
    memoryBytes === null
      ? [program, args]
      : [
          "prlimit",
          // CPU: SIGXCPU at the limit (reported as a timeout), SIGKILL a second later for a program that
          // ignores it; no core files from a program killed on a hostile input.
          [
            `--as=${memoryBytes}`,
            `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
            "--core=0",
            "--",
            program,
            ...args,
          ],
        ];
  const started = Date.now();
  const stdout = new CappedText(options.maxOutputBytes ?? runDefaults.maxOutputBytes);
  const stderr = new CappedText(options.maxOutputBytes ?? runDefaults.maxOutputBytes);

  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({
        exitCode: null,
        signal: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        aborted: true,
        durationMs: 0,
      });
      return;
    }
    const child = spawn(command, commandArgs, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      cwd: options.cwd,
      env: options.env ?? process.env,
    });
    let timedOut = false;
    let aborted = false;
    const killGroup = (): void => {
      const problem = child.pid === undefined ? undefined : killProcessGroup(child.pid);
      if (problem !== undefined)
        stderr.add(Buffer.from(`\n[run: could not kill the process group: ${problem}]`));
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    // Anything the program left running in its group would hold our pipes open; end it with the program.
    child.on("exit", killGroup);
    child.on("error", (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        // The CPU-time limit is the timeout's twin: a busy program reaches it about when the clock runs out.
        timedOut: timedOut || signal === "SIGXCPU",
        aborted,
        durationMs: Date.now() - started,
      });
    });
  });
}

/** Returns a problem description, or undefined when the group is dead or already gone. */
function killProcessGroup(pid: number): string | undefined {
  try {
    process.kill(-pid, "SIGKILL");
    return undefined;
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted. Anything else is reported, not thrown,
    // because this runs inside timers and event handlers.
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ESRCH" ? undefined : String(code ?? error);
  }
}

async function writeSecrets(secrets: RunSecrets): Promise<Record<string, string>> {
  const paths: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets.files)) {
    const path = join(secrets.dir, `.secret-${randomUUID()}`);
    await writeFile(path, value, { mode: 0o600, flag: "wx" });
    paths[name] = path;
  }
  return paths;
}

function fillSecretPlaceholders(arg: string, paths: Record<string, string>): string {
  return arg.replace(/\{\{(\w+)\}\}/g, (placeholder, name: string) => paths[name] ?? placeholder);
}
