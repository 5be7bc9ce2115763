import { readdirSync, readFileSync } from "node:fs";

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
