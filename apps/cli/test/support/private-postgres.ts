import { execFile } from "node:child_process";
import { appendFile, chown } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { createTempDir } from "@octavo/testing";
import { freePort } from "./stack.js";

const run = promisify(execFile);
const BIN = process.env.OCTAVO_TEST_POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  /**
   * A real restart: a fast shutdown (open connections are cut, running transactions rolled back), down
   * for `downMs` more (a restart as slow as a big server's), started again; resolved once it accepts
   * connections.
   */
  restart(downMs?: number): Promise<void>;
  /** Stops the server and deletes its files. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of its own in a temp dir, for a test that restarts it: the machine's shared
 * server is used by other tests at the same time.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await createTempDir("octavo-pg-");
  const data = join(dir.path, "data");
  // initdb and postgres refuse to run as root: then they run as the `postgres` user, who owns the dir.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = async (flag: string) => Number((await run("id", [flag, "postgres"])).stdout);
    await chown(dir.path, await id("-u"), await id("-g"));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(BIN, tool), ...args]) : run(join(BIN, tool), args);
  // -w: pg_ctl returns once the server accepts connections (or has stopped).
  const pgCtl = (...args: string[]) =>
    pg("pg_ctl", [...args, "-D", data, "-l", join(dir.path, "server.log"), "-w", "-t", "60"]);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await pgCtl("stop", "-m", "immediate").catch(() => undefined); // not running: nothing to stop
    await dir.dispose();
  };

  try {
    // A throwaway server: no fsync, nothing here has to survive a machine crash.
    await pg("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--no-sync",
      "--locale=C",
      "-E",
      "UTF8",
    ]);
    const port = await freePort();
    // In the config file, not on the command line, so every start after a stop is the same server.
    await appendFile(
      join(data, "postgresql.conf"),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir.path}'`,
        "fsync = off",
        "full_page_writes = off",
        "",
      ].join("\n"),
    );
    await pgCtl("start");
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async restart(downMs = 0) {
        await pgCtl("stop", "-m", "fast");
        await delay(downMs);
        await pgCtl("start");
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
