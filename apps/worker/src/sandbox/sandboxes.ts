import type { EngineTask } from "./protocol.js";
import { SandboxProcess, type TaskOptions, type TaskResult } from "./sandbox-process.js";

export interface SandboxLimits {
  /** The V8 heap cap of each sandbox; MuPDF's WebAssembly memory has its own (2 GiB per instance). */
  maxHeapMb: number;
  /** A reused process ends after this many jobs, so nothing a long life gathers (fragmentation, leaks) builds up. */
  maxJobsPerProcess: number;
  /** A reused process ends when its resident memory passes this after a job. */
  maxResidentBytes: number;
  /** Reusable processes kept waiting between jobs (the worker's engine slots). */
  maxIdle: number;
  /** OCTAVO_URL_ALLOWLIST, for the engines that make a request (Sign PDF's time-stamp). */
  urlAllowlist: string;
  /** Engine modules a new process imports while it waits for its first job (see sparePreloads). */
  preload?: readonly string[];
}

/**
 * The worker's sandbox processes. A job that may reuse a process takes a waiting one, which goes back
 * to wait when the job ended normally and the process is within its limits. Any other job, or one
 * with no process waiting, takes the spare: a fresh process started ahead of need, since starting
 * Node and loading the engines costs about 0.2 s of CPU. A process that timed out, crashed or was
 * aborted is killed with its tree and never used again.
 */
export class Sandboxes {
  private readonly idle: SandboxProcess[] = [];
  private spare: SandboxProcess | undefined;
  private closed = false;
  /** Sandbox processes started so far (metrics). */
  started = 0;

  constructor(private readonly limits: SandboxLimits) {}

  async run(task: EngineTask, options: TaskOptions & { reuse: boolean }): Promise<TaskResult> {
    const sandbox = (options.reuse ? this.takeIdle() : undefined) ?? this.takeSpare();
    const result = await sandbox.run(task, options);
    if (options.reuse && result.healthy && this.mayContinue(sandbox)) this.idle.push(sandbox);
    else sandbox.kill();
    return result;
  }

  /** Starts the spare ahead of the first job. */
  prewarm(): void {
    if (!this.spare && !this.closed) this.spare = this.start();
  }

  /** Processes waiting for a job (for tests and diagnostics). */
  get waiting(): number {
    return this.idle.length + (this.spare ? 1 : 0);
  }

  close(): void {
    this.closed = true;
    for (const sandbox of this.idle.splice(0)) sandbox.kill();
    this.spare?.kill();
    this.spare = undefined;
  }

  private takeIdle(): SandboxProcess | undefined {
    for (let sandbox = this.idle.pop(); sandbox; sandbox = this.idle.pop()) {
      if (sandbox.alive) return sandbox;
      sandbox.kill();
    }
    return undefined;
  }

  private takeSpare(): SandboxProcess {
    const spare = this.spare?.alive ? this.spare : undefined;
    if (!spare) this.spare?.kill();
    this.spare = this.closed ? undefined : this.start();
    return spare ?? this.start();
  }

  private start(): SandboxProcess {
    this.started += 1;
    return new SandboxProcess(this.limits.maxHeapMb, this.limits.urlAllowlist, this.limits.preload ?? []);
  }

  private mayContinue(sandbox: SandboxProcess): boolean {
    if (this.closed || this.idle.length >= this.limits.maxIdle) return false;
    if (sandbox.jobs >= this.limits.maxJobsPerProcess) return false;
    return (sandbox.residentBytes() ?? Number.POSITIVE_INFINITY) <= this.limits.maxResidentBytes;
  }
}
