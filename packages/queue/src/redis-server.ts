import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pingRedis } from "./redis-connection.js";

export interface RedisServerLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SupervisedRedis {
  /** `unix://` URL of the socket. */
  readonly url: string;
  /** Stops the server (it writes its append-only file first). A reused server is left running. */
  close(): Promise<void>;
}

const MAX_SOCKET_PATH = 100; // sockaddr_un allows 108 bytes, minus margin

function socketPathFor(dir: string): string {
  const inDataDir = join(dir, "redis.sock");
  if (inDataDir.length <= MAX_SOCKET_PATH) return inDataDir;
  const digest = createHash("sha256").update(dir).digest("hex").slice(0, 16);
  return join(tmpdir(), `octavo-redis-${digest}.sock`);
}

/**
 * Runs redis-server (`$1`, its arguments after it) on a lifeline: the shell stops the server when its stdin,
 * a pipe from the service, closes, which the kernel does however the service ends (even on SIGKILL). The
 * shell exits with the server's status, so an unexpected exit is seen as the shell's.
 */
const LIFELINE = [
  "exec 3<&0", // the pipe, kept: sh gives background commands /dev/null as stdin
  'server="$1"; shift',
  '"$server" "$@" 3<&- </dev/null & pid=$!',
  '(cat <&3 >/dev/null; kill "$pid" 2>/dev/null) &',
  "exec 3<&-",
  'wait "$pid"',
].join("\n");

/**
 * Starts the single-machine default: a private redis-server on a Unix socket in the data dir, with
 * append-only persistence (queued jobs survive a restart) and `noeviction` (BullMQ must never lose
 * keys). If the socket already answers (another octavo process on this data dir started it), that
 * server is reused. Unexpected exits are restarted with a back-off.
 *
 * The server runs in a process group of its own: a signal sent to the service's group (Ctrl-C in a
 * terminal, `kill -TERM -PGID`) reaches the service, which drains its running jobs, and not the server those
 * jobs still need; the service stops the server last (`close`). The lifeline keeps it from outliving the
 * service.
 */
export async function startRedisServer(options: {
  dataDir: string;
  logger: RedisServerLogger;
  binary?: string;
}): Promise<SupervisedRedis> {
  const dir = join(options.dataDir, "redis");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const socket = socketPathFor(dir);
  const url = `unix://${socket}`;

  if (await pingRedis(url)) {
    options.logger.info({ socket }, "using the redis-server already running on this data dir");
    return { url, close: async () => undefined };
  }
  if (existsSync(socket)) await rm(socket, { force: true });

  const args = [
    "--port",
    "0",
    "--unixsocket",
    socket,
    "--unixsocketperm",
    "700",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "everysec",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
    "--logfile",
    join(dir, "redis.log"),
  ];
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;

  const launch = (): ChildProcess => {
    const proc = spawn("sh", ["-c", LIFELINE, "sh", options.binary ?? "redis-server", ...args], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    proc.stdin?.on("error", () => undefined); // nothing is written; the pipe only has to stay open
    proc.on("exit", (code, signal) => {
      proc.stdin?.destroy(); // ends this server's lifeline
      if (stopping) return;
      restarts += 1;
      const wait = Math.min(30_000, 500 * 2 ** Math.min(restarts, 6));
      options.logger.error({ code, signal, restartInMs: wait }, "redis-server exited; restarting");
      setTimeout(() => {
        if (!stopping) child = launch();
      }, wait).unref();
    });
    proc.on("error", (error) => options.logger.error({ err: error }, "redis-server could not be started"));
    return proc;
  };

  child = launch();
  const deadline = Date.now() + 15_000;
  while (!(await pingRedis(url, 500))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      stopping = true;
      killGroup(child);
      throw new Error(`redis-server did not start on ${socket} (see ${join(dir, "redis.log")})`);
    }
    await delay(50);
  }
  options.logger.info({ socket }, "redis-server started");

  return {
    url,
    async close() {
      stopping = true;
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      proc.stdin?.end(); // the lifeline sends the server SIGTERM: it writes its append-only file and exits
      const timer = setTimeout(() => killGroup(proc), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** SIGKILL to the lifeline's process group: the shell, the server and the lifeline's watcher. */
function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // already gone
  }
}
