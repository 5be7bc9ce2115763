import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const cliMain = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "main.js");
export const cliLauncher = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "octavo.mjs");

/** `octavo <args>` as a separate process with the given environment, its output kept for failures. */
export function spawnOctavo(
  args: string[],
  env: Record<string, string>,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [cliMain, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return Object.assign(child, { output: () => output });
}

/** Pids of live processes whose command line contains `fragment`. */
export function processesMatching(fragment: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmdline.includes(fragment) && state !== "Z") pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids;
}

/** The parent pid of `pid`, or undefined once it has exited. */
function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ")".
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
  } catch {
    return undefined; // exited while reading
  }
}

/** Pids of live child processes of `parent` whose command line contains `fragment`. */
export function childrenMatching(parent: number, fragment: string): number[] {
  return processesMatching(fragment).filter((pid) => parentOf(pid) === parent);
}

/**
 * Pids of live processes under `root` (children, grandchildren, ...) whose command line contains
 * `fragment`. Test files run side by side, so a check on "no qpdf left" must look at its own tree only.
 */
export function descendantsMatching(root: number, fragment: string): number[] {
  return processesMatching(fragment).filter((pid) => {
    for (
      let ancestor = parentOf(pid);
      ancestor !== undefined && ancestor > 1;
      ancestor = parentOf(ancestor)
    ) {
      if (ancestor === root) return true;
    }
    return false;
  });
}
