import type { SandboxReuse } from "@octavo/contracts";
import type { EngineTask, HelperTask } from "./protocol.js";
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
  /** A process kept for one account's next job ends after waiting this long, and what it holds with it. */
  accountIdleMs: number;
  /** OCTAVO_URL_ALLOWLIST, for the engines that make a request (Sign PDF's time-stamp). */
  urlAllowlist: string;
  /** Engine modules a new process imports while it waits for its first job (see sparePreloads). */
  preload?: readonly string[];
}

/** How a job may use a waiting process: its operation's catalogue `reuse`, and the account that sent it. */
export interface SandboxUse {
  reuse: SandboxReuse;
  account: string;
}

/** A process waiting for a job; `account`: the one whose data its heap may still hold (see SandboxReuse). */
interface Waiting {
  sandbox: SandboxProcess;
  account: string | undefined;
  expiry: NodeJS.Timeout | undefined;
}

/**
 * The worker's sandbox processes. A job that may reuse a process takes a waiting one it may have (any
 * clean one, or one kept for its own account), which goes back to wait when the job ended normally and
 * the process is within its limits. Any other job, or one with no process waiting, takes the spare: a
 * fresh process started ahead of need, since starting Node and loading the engines costs about 0.2 s of
 * CPU. A process that timed out, crashed or was aborted is killed with its tree and never used again.
 */
export class Sandboxes {
  private readonly idle: Waiting[] = [];
  private spare: SandboxProcess | undefined;
  private closed = false;
  /** Sandbox processes started so far (metrics). */
  started = 0;

  constructor(private readonly limits: SandboxLimits) {}

  async run(task: EngineTask | HelperTask, options: TaskOptions & SandboxUse): Promise<TaskResult> {
    const waiting = this.takeIdle(options);
    const sandbox = waiting?.sandbox ?? this.takeSpare();
    const result = await sandbox.run(task, options);
    if (options.reuse !== "none" && result.healthy && this.mayContinue(sandbox)) {
      // A process that ran an account's values stays that account's, whatever it runs next.
      const account = options.reuse === "account" ? options.account : waiting?.account;
      this.wait(sandbox, account);
    } else sandbox.kill();
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
    for (const waiting of this.idle.splice(0)) this.end(waiting);
    this.spare?.kill();
    this.spare = undefined;
  }

  /** The most recently used waiting process this job may take: a clean one, or one of its own account's. */
  private takeIdle(use: SandboxUse): Waiting | undefined {
    if (use.reuse === "none") return undefined;
    for (let index = this.idle.length - 1; index >= 0; index -= 1) {
      const waiting = this.idle[index];
      if (waiting === undefined || (waiting.account !== undefined && waiting.account !== use.account))
        continue;
      this.idle.splice(index, 1);
      clearTimeout(waiting.expiry);
      if (waiting.sandbox.alive) return waiting;
      waiting.sandbox.kill();
    }
    return undefined;
  }

  /** Puts a process back to wait; when all places are taken, the one that waited longest ends. */
  private wait(sandbox: SandboxProcess, account: string | undefined): void {
    const waiting: Waiting = { sandbox, account, expiry: undefined };
    if (account !== undefined) {
      waiting.expiry = setTimeout(() => this.expire(waiting), this.limits.accountIdleMs);
      waiting.expiry.unref();
    }
    this.idle.push(waiting);
    while (this.idle.length > this.limits.maxIdle) {
      const oldest = this.idle.shift();
      if (oldest) this.end(oldest);
    }
  }

  private expire(waiting: Waiting): void {
    const index = this.idle.indexOf(waiting);
    if (index < 0) return;
    this.idle.splice(index, 1);
    this.end(waiting);
  }

  private end(waiting: Waiting): void {
    clearTimeout(waiting.expiry);
    waiting.sandbox.kill();
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
    if (this.closed || this.limits.maxIdle === 0) return false;
    if (sandbox.jobs >= this.limits.maxJobsPerProcess) return false;
    return (sandbox.residentBytes() ?? Number.POSITIVE_INFINITY) <= this.limits.maxResidentBytes;
  }
}
