import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { helperScript } from "./assets.js";
import type { OfficeFamily } from "./extensions.js";
import type { OfficeLogger } from "./logger.js";
import { removeLeftoverPipes, seedProfile } from "./profile.js";

/** One conversion, as the UNO helper (uno/convert.py) takes it. */
export interface HelperRequest {
  input: string;
  output: string;
  family: OfficeFamily;
  filter?: string;
  filterOptions?: string;
  csv?: boolean;
  /** The export filter, when the output is not a PDF (Generate's ODT and DOCX). */
  exportFilter?: string;
}

export type HelperAnswer =
  | { ok: true; repaired: boolean; asked: string; ms: number }
  | {
      ok: false;
      error: "password" | "unreadable" | "wrong_kind" | "export_failed" | "crashed";
      message: string;
      asked?: string;
      detected?: string;
      ms: number;
    };

/** LibreOffice (or its helper) ended while a conversion was running. */
export class InstanceDied extends Error {
  override readonly name = "InstanceDied";
}

/** The conversion outlived its timeout; the instance was killed. */
export class InstanceTimedOut extends Error {
  override readonly name = "InstanceTimedOut";
}

export interface InstanceSettings {
  index: number;
  /** Holds profile/ and tmp/; wiped at every start. */
  dir: string;
  homeDir: string;
  /** Unique on the machine: LibreOffice's UNO pipe is /tmp/OSL_PIPE_<uid>_<pipeName>. */
  pipeName: string;
  /** Command prefix: the memory limit and the network namespace. */
  launcher: () => Promise<readonly string[]>;
  python: string;
  soffice: string;
  startTimeoutMs: number;
  logger: OfficeLogger;
}

interface Pending {
  id: number;
  resolve: (answer: HelperAnswer) => void;
  reject: (error: Error) => void;
}

interface ReadyMessage {
  type: "ready";
  sofficePid: number;
  security: { macroSecurityLevel: number; disableMacrosExecution: boolean };
}

const stderrTailChars = 8 * 1024;

/**
 * One warm LibreOffice: the UNO helper (python3-uno) and the soffice it starts, in their own process
 * group, so a kill takes oosplash and soffice.bin along. This module is the only place in the package that
 * spawns a long-lived process; one-shot commands go through @octavo/engines' run().
 */
export class OfficeInstance {
  /** Conversions sent to the current process; the converter recycles the instance past its limit. */
  conversions = 0;
  /** LibreOffice processes started for this instance so far (for metrics: all but the first are restarts). */
  launches = 0;
  private child: ChildProcessWithoutNullStreams | undefined;
  private ready = false;
  private starting: Promise<void> | undefined;
  private exited: Promise<void> = Promise.resolve();
  private pending: Pending | undefined;
  private waitingForReady:
    | { resolve: (message: ReadyMessage) => void; reject: (error: Error) => void }
    | undefined;
  private stopping = false;
  private shutDown = false;
  private nextId = 1;
  private stderrTail = "";
  private profileUrl = "";

  constructor(private readonly settings: InstanceSettings) {}

  /** True when a started LibreOffice is waiting for work. */
  get alive(): boolean {
    return this.ready && this.child !== undefined;
  }

  /** Starts LibreOffice unless it runs or is starting; concurrent callers share one start. */
  ensureStarted(): Promise<void> {
    if (this.starting !== undefined) return this.starting;
    if (this.alive) return Promise.resolve();
    return this.begin(() => this.launch());
  }

  /** Replaces the process with a fresh one (recycling, or after a crash); callers of ensureStarted wait. */
  restart(): Promise<void> {
    return this.begin(async () => {
      await this.stop();
      await this.launch();
    });
  }

  private begin(task: () => Promise<void>): Promise<void> {
    const started = task().finally(() => {
      if (this.starting === started) this.starting = undefined;
    });
    this.starting = started;
    return started;
  }

  /** Kills the whole process group now; whatever was running fails with InstanceDied. */
  kill(): void {
    this.ready = false;
    const pid = this.child?.pid;
    if (pid !== undefined) killGroup(pid, this.settings.logger);
  }

  /**
   * Kills the process group and waits until the helper has exited and every process of its group is
   * gone, so a restart never runs two soffice.bin for one instance, even for a moment.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const pid = this.child?.pid;
    this.kill();
    await this.exited;
    if (pid !== undefined) await groupGone(pid);
    this.stopping = false;
  }

  /** Stops for good: a start still in progress is ended too, and no later start spawns anything. */
  async shutdown(): Promise<void> {
    this.shutDown = true;
    const starting = this.starting;
    this.kill();
    await Promise.allSettled(starting === undefined ? [] : [starting]);
    await this.stop();
  }

  /** Sends one conversion; rejects with InstanceTimedOut, InstanceDied or the signal's reason. */
  convert(request: HelperRequest, timeoutMs: number, signal?: AbortSignal): Promise<HelperAnswer> {
    const child = this.child;
    if (!this.alive || child === undefined)
      return Promise.reject(new InstanceDied("LibreOffice is not running"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId;
    this.nextId += 1;
    this.conversions += 1;
    return new Promise<HelperAnswer>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending = undefined;
      };
      const timer = setTimeout(() => {
        settle();
        this.settings.logger.warn(
          { instance: this.settings.index, timeoutMs },
          "office conversion timed out; killing LibreOffice",
        );
        this.kill();
        reject(new InstanceTimedOut(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // LibreOffice cannot cancel a conversion; the only way to stop one is to end the process.
      const onAbort = (): void => {
        settle();
        this.kill();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        id,
        resolve: (answer) => {
          settle();
          resolve(answer);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  private async launch(): Promise<void> {
    this.launches += 1;
    const { dir, pipeName, logger, index } = this.settings;
    const started = Date.now();
    const launcher = await this.settings.launcher();
    if (this.profileUrl !== "") await removeLeftoverPipes(pipeName, this.profileUrl);
    const tmpDir = join(dir, "tmp");
    this.profileUrl = await seedProfile(join(dir, "profile"));
    await rm(tmpDir, { recursive: true, force: true });
    await mkdir(tmpDir, { recursive: true });
    await mkdir(this.settings.homeDir, { recursive: true });
    if (this.shutDown) throw new Error("the converter is closed");

    const args = [
      ...launcher,
      this.settings.python,
      "-I",
      helperScript,
      "--soffice",
      this.settings.soffice,
      "--profile-url",
      this.profileUrl,
      "--pipe",
      pipeName,
      "--start-timeout",
      String(Math.ceil(this.settings.startTimeoutMs / 1000)),
    ];
    const [program = this.settings.python, ...rest] = args;
    const child = spawn(program, rest, {
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      // Only what LibreOffice needs: the worker's environment (database URLs, keys) stays out of it.
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: this.settings.homeDir,
        TMPDIR: tmpDir,
        LANG: "C.UTF-8",
        SAL_USE_VCLPLUGIN: "svp",
      },
    });
    this.child = child;
    this.stderrTail = "";
    this.conversions = 0;
    // "exit", not "close": a process that escaped the group could hold the pipes open for ever.
    this.exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      // A failed spawn (no prlimit, no python3) may end with "error" alone.
      child.once("error", () => resolve());
    });
    const ready = new Promise<ReadyMessage>((resolve, reject) => {
      this.waitingForReady = { resolve, reject };
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => this.noteStderr(chunk));
    // EPIPE when the helper is gone: the exit handler reports that; keep the text for the log.
    child.stdin.on("error", (error) => this.noteStderr(`\n[stdin: ${error.message}]`));
    createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
    child.on("error", (error) => this.onExit(child, `spawn failed: ${error.message}`));
    child.on("exit", (code, signal) => this.onExit(child, `exit ${code ?? signal ?? "?"}`));

    const timer = setTimeout(() => {
      this.waitingForReady?.reject(
        new Error(`LibreOffice did not start within ${this.settings.startTimeoutMs} ms`),
      );
      this.kill();
    }, this.settings.startTimeoutMs + 5_000);
    let message: ReadyMessage;
    try {
      message = await ready;
    } finally {
      clearTimeout(timer);
      this.waitingForReady = undefined;
    }
    const { macroSecurityLevel, disableMacrosExecution } = message.security;
    if (macroSecurityLevel !== 3 || !disableMacrosExecution) {
      this.kill();
      throw new Error(
        `the LibreOffice profile did not take the macro settings (level ${macroSecurityLevel}, disabled ${disableMacrosExecution})`,
      );
    }
    this.ready = true;
    logger.info(
      { instance: index, pid: child.pid, sofficePid: message.sofficePid, ms: Date.now() - started },
      "LibreOffice started",
    );
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // Not ours: the helper keeps fd 1 for the protocol, but keep anything odd for the log.
      this.noteStderr(`\n[stdout: ${line}]`);
      return;
    }
    if (!isRecord(message)) return;
    if (message.type === "ready") {
      this.waitingForReady?.resolve(message as unknown as ReadyMessage);
    } else if (message.type === "fatal") {
      this.noteStderr(`\n[helper: ${String(message.message)}]`);
    } else if (this.pending !== undefined && message.id === this.pending.id) {
      this.pending.resolve(message as unknown as HelperAnswer);
    }
  }

  private onExit(child: ChildProcessWithoutNullStreams, how: string): void {
    if (child !== this.child) return;
    this.child = undefined;
    this.ready = false;
    // The helper is the group leader; if it died alone, oosplash and soffice.bin must not outlive it.
    if (child.pid !== undefined) killGroup(child.pid, this.settings.logger);
    const detail = `LibreOffice helper ${how}: ${this.stderrTail.trim()}`;
    this.waitingForReady?.reject(new Error(detail));
    this.pending?.reject(new InstanceDied(detail));
    if (!this.stopping)
      this.settings.logger.warn({ instance: this.settings.index, detail }, "LibreOffice exited");
    removeLeftoverPipes(this.settings.pipeName, this.profileUrl).catch((error: unknown) =>
      this.settings.logger.warn(
        { instance: this.settings.index, error: String(error) },
        "could not remove pipes",
      ),
    );
  }

  private noteStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-stderrTailChars);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Resolves once no process of the group is left (signal 0 probes without killing), within 5 s. */
async function groupGone(pid: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    try {
      process.kill(-pid, 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    await delay(20);
  }
}

function killGroup(pid: number, logger: OfficeLogger): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ESRCH") logger.warn({ pid, code }, "could not kill LibreOffice's process group");
  }
}
