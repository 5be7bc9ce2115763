import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type SandboxedOperation, sandboxEngineOf } from "../operations.js";
import { killProcessTree } from "../process-tree.js";
import {
  type EngineTask,
  type HelperTask,
  type RunMessage,
  type SandboxEngine,
  type SandboxMessage,
  type SandboxResult,
  timedOutResult,
} from "./protocol.js";

const CHILD_ENTRY = fileURLToPath(new URL("./child.js", import.meta.url));
/** The only variables a sandbox sees: no database URL, Redis URL, secret key or cloud credentials. */
const PASSED_ENV = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ"];
const STDERR_CAP = 16 * 1024;
const PAGE_BYTES = 4096;

function sandboxEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    PASSED_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  );
}

export interface TaskOptions {
  timeoutMs: number;
  onProgress: (fraction: number) => void;
  /** Aborting kills the process and its tree (worker shutdown). */
  signal?: AbortSignal;
  /** The engine to call, when not the operation's own: a resident operation's prepare step (Generate). */
  engine?: SandboxEngine;
}

/** A job's result, with what the sandbox wrote to stderr meanwhile; `healthy`: it may take another job. */
export type TaskResult = SandboxResult & { stderr: string; healthy: boolean };

/**
 * One sandbox process. It runs one job at a time; a timeout, an abort or a crash kills it with its
 * whole process tree, so a hostile file costs its own job only.
 */
export class SandboxProcess {
  private readonly child: ChildProcess;
  private running = false;
  /** Jobs this process has run (or is running). */
  jobs = 0;

  constructor(
    maxHeapMb: number,
    private readonly urlAllowlist: string,
    preload: readonly string[] = [],
  ) {
    // The modules to import while waiting: names of the catalogue's engine modules, never a job's data.
    this.child = fork(CHILD_ENTRY, [...preload], {
      // --expose-gc: the sandbox collects garbage when it waits, releasing the last job's MuPDF memory.
      execArgv: [`--max-old-space-size=${maxHeapMb}`, "--expose-gc"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: sandboxEnv(),
      // A process group of its own: Ctrl-C or a signal to the worker's group must not kill the job the
      // worker is draining. The sandbox still ends with the worker: it exits when its IPC channel closes.
      detached: true,
    });
    // A process that dies while idle is simply not used; its error must not crash the worker.
    this.child.on("error", () => undefined);
    this.child.stderr?.setEncoding("utf8");
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Started, not ended, and still connected. */
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.child.connected;
  }

  /** Resident memory, read from /proc; undefined when the process is gone. */
  residentBytes(): number | undefined {
    try {
      const pages = Number(readFileSync(`/proc/${this.child.pid}/statm`, "utf8").split(" ")[1]);
      return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
    } catch {
      return undefined; // the process is gone
    }
  }

  /** Ends the process and everything it started. */
  kill(): void {
    if (this.child.pid !== undefined) killProcessTree(this.child.pid, { includeRoot: true });
  }

  /** Runs the task with its operation's engine, or with `options.engine` (which a HelperTask needs). */
  run(task: EngineTask | HelperTask, options: TaskOptions): Promise<TaskResult> {
    if (this.running) throw new Error("a sandbox runs one job at a time");
    this.running = true;
    this.jobs += 1;
    const child = this.child;
    return new Promise((resolve) => {
      let stderr = "";
      let settled = false;
      const onStderr = (chunk: string) => {
        if (stderr.length < STDERR_CAP) stderr += chunk.slice(0, STDERR_CAP - stderr.length);
      };
      const onMessage = (message: SandboxMessage) => {
        if (message.type === "progress") options.onProgress(message.fraction);
        else finish(message, true);
      };
      let exitGrace: NodeJS.Timeout | undefined;
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        // A result sent just before exiting may still be in the IPC pipe: give it a moment.
        exitGrace = setTimeout(() => {
          finish(
            {
              type: "failed",
              code: "conversion_failed",
              message:
                "The engine crashed while processing the file. If the file opens in a PDF viewer, try the repair operation.",
              detail: `sandbox exited with ${signal ?? code}`,
            },
            false,
          );
        }, 200);
      };
      const onError = (error: Error) =>
        finish(
          {
            type: "failed",
            code: "conversion_failed",
            message: "The engine could not be started.",
            detail: error.message,
          },
          false,
        );
      const onAbort = () =>
        finish(
          {
            type: "failed",
            code: "conversion_failed",
            message: "The worker stopped while running the job.",
            detail: "aborted",
          },
          false,
        );
      const timer = setTimeout(() => {
        finish(timedOutResult(options.timeoutMs), false);
      }, options.timeoutMs);

      const finish = (result: SandboxResult, healthy: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(exitGrace);
        options.signal?.removeEventListener("abort", onAbort);
        child.stderr?.off("data", onStderr);
        child.off("message", onMessage);
        child.off("exit", onExit);
        child.off("error", onError);
        this.running = false;
        if (!healthy) this.kill();
        resolve({ ...result, stderr, healthy: healthy && this.alive });
      };

      child.stderr?.on("data", onStderr);
      child.on("message", onMessage);
      child.on("exit", onExit);
      child.on("error", onError);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (!this.alive) return onExit(child.exitCode, child.signalCode);
      const message: RunMessage = {
        type: "run",
        task,
        engine: options.engine ?? sandboxEngineOf(task.operation as SandboxedOperation),
        urlAllowlist: this.urlAllowlist,
      };
      child.send(message);
    });
  }
}
