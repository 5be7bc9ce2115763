import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD_ENTRY = fileURLToPath(new URL("./child.js", import.meta.url));
/** The only variables a sandbox sees: no database URL, Redis URL, secret key or cloud credentials. */
const PASSED_ENV = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ"];

function sandboxEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    PASSED_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  );
}

/**
 * Fresh sandbox processes, one kept ready ahead of need. Starting Node and loading the engines takes
 * about 0.2 s, which a spare child pays while the previous job runs instead of on the job's path.
 * Every child still runs exactly one job and is then killed: no state crosses from one file to the next.
 */
export class SandboxPool {
  private spare: ChildProcess | undefined;
  private closed = false;

  constructor(private readonly maxHeapMb: number) {}

  private fork(): ChildProcess {
    const child = fork(CHILD_ENTRY, [], {
      execArgv: [`--max-old-space-size=${this.maxHeapMb}`],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: sandboxEnv(),
    });
    // A spare that dies before use is simply replaced; its error must not crash the worker.
    child.on("error", () => undefined);
    return child;
  }

  /** A child waiting for its task; the next spare starts right away. */
  take(): ChildProcess {
    const spare = this.spare;
    this.spare = undefined;
    const child =
      spare && spare.exitCode === null && spare.signalCode === null && spare.connected ? spare : this.fork();
    if (!this.closed) this.spare = this.fork();
    return child;
  }

  close(): void {
    this.closed = true;
    this.spare?.kill("SIGKILL");
    this.spare = undefined;
  }
}
