import { type ChildProcess, fork } from "node:child_process";

/**
 * A few long-lived Node processes running one script's calls, one call at a time each: the engine runs of
 * a corpus test kept out of the test's own process, without a Node start per file. (Starting Node and
 * loading the converters took more CPU than the conversions themselves: 24 PDF to Word and PowerPoint
 * conversions of corpus/tables files used 10.3 s in a process each, 3.1 s in one process.) The child
 * script answers with `answerCalls`; it begins every call with a fresh MuPDF instance, as a reused
 * sandbox of the worker does, and is replaced after `callsPerChild` calls.
 */
export class ChildPool<Request, Answer> {
  readonly #script: string;
  readonly #callsPerChild: number;
  readonly #lanes: Promise<void>[] = [];
  readonly #queue: { request: Request; settle: (outcome: Outcome<Answer>) => void }[] = [];
  #wake: (() => void)[] = [];
  #closed = false;

  constructor(script: string, options: { size: number; callsPerChild: number }) {
    this.#script = script;
    this.#callsPerChild = options.callsPerChild;
    for (let lane = 0; lane < options.size; lane += 1) this.#lanes.push(this.#runLane());
  }

  /** What the child's handler returned for `request`; rejects if it threw or the child died. */
  call(request: Request): Promise<Answer> {
    if (this.#closed) return Promise.reject(new Error("the child pool is closed"));
    return new Promise((resolve, reject) => {
      this.#queue.push({
        request,
        settle: (outcome) => ("value" in outcome ? resolve(outcome.value) : reject(outcome.error)),
      });
      this.#wake.shift()?.();
    });
  }

  /** Ends every child once the calls already made are answered. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#wake.splice(0)) wake();
    await Promise.all(this.#lanes);
  }

  async #runLane(): Promise<void> {
    let child: ChildProcess | undefined;
    let calls = 0;
    for (;;) {
      const next = this.#queue.shift();
      if (next === undefined) {
        if (this.#closed) break;
        await new Promise<void>((wake) => this.#wake.push(wake));
        continue;
      }
      if (child === undefined || calls >= this.#callsPerChild) {
        if (child) await this.#end(child);
        child = this.#start();
        calls = 0;
      }
      calls += 1;
      const outcome = await this.#send(child, next.request);
      if ("error" in outcome && child.exitCode !== null) child = undefined;
      next.settle(outcome);
    }
    if (child) await this.#end(child);
  }

  #start(): ChildProcess {
    // A plain Node, as the worker starts its sandboxes: not the test runner's flags and loaders.
    return fork(this.#script, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  }

  #send(child: ChildProcess, request: Request): Promise<Outcome<Answer>> {
    return new Promise((settle) => {
      const onMessage = (message: Outcome<Answer>) => {
        child.off("exit", onExit);
        settle("error" in message ? { error: Object.assign(new Error(), message.error) } : message);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        child.off("message", onMessage);
        settle({ error: new Error(`${this.#script} exited (${signal ?? code}) during a call`) });
      };
      child.once("message", onMessage);
      child.once("exit", onExit);
      child.send(request as object);
    });
  }

  async #end(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.disconnect();
    await exited;
  }
}

type Outcome<Answer> = { value: Answer } | { error: Error };

/**
 * In a ChildPool's script: answers each call with what `handle` returns (or the error it throws), one
 * call at a time. The child ends when the pool lets it go.
 */
export function answerCalls<Request>(handle: (request: Request) => Promise<unknown>): void {
  let calls = Promise.resolve();
  process.on("message", (request: Request) => {
    calls = calls.then(async () => {
      const outcome = await handle(request).then(
        (value) => ({ value }),
        (error: unknown) => ({
          error:
            error instanceof Error
              ? { message: error.message, stack: error.stack }
              : { message: String(error) },
        }),
      );
      process.send?.(outcome);
    });
  });
}
