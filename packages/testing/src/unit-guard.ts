import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import { expect } from "vitest";

/**
 * A vitest setup file. In a unit test file (`*.unit.test.ts`, the files `npm run test:unit` runs) it makes
 * starting a process, or connecting to PostgreSQL or Redis, throw: what the fast loop promises, checked
 * on every run instead of trusted to a file's name. Any other test file is left alone.
 */
const UNIT_FILE = /\.unit\.test\.[cm]?[jt]s$/;
/** PostgreSQL's and Redis's ports: a unit test reaches neither (loopback servers of its own are fine). */
const SERVICE_PORTS = new Set([5432, 6379]);

function refuse(what: string): never {
  throw new Error(
    `${what} in a unit test file: *.unit.test.ts files start no process and reach no database or Redis. ` +
      "Rename the file to *.test.ts (it then runs in the full suite only), or test without it.",
  );
}

function guard(): void {
  for (const name of [
    "spawn",
    "spawnSync",
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "fork",
  ] as const) {
    Object.defineProperty(childProcess, name, {
      value: (command: unknown) => refuse(`child_process.${name}(${JSON.stringify(command)})`),
    });
  }
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    // connect(port, host), connect(options), or the normalized [options, callback] net.connect passes.
    const [raw] = args;
    const first = Array.isArray(raw) ? raw[0] : raw;
    const port =
      typeof first === "object" && first !== null && "port" in first
        ? Number((first as { port: unknown }).port)
        : Number(first);
    if (SERVICE_PORTS.has(port)) refuse(`a connection to port ${port}`);
    return Reflect.apply(connect, this, args) as net.Socket;
  } as typeof connect;
  // ESM named imports of node:child_process are live bindings of these exports.
  syncBuiltinESMExports();
}

if (UNIT_FILE.test(expect.getState().testPath ?? "")) guard();
