import { readdirSync, readFileSync } from "node:fs";

/** Parent pid of every process, read from /proc (Linux). */
function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in field 2 may contain spaces and parentheses: parse after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // The process exited while we were listing: it needs no killing.
    }
  }
  return parents;
}

export function descendantsOf(rootPid: number): number[] {
  const parents = parentsByPid();
  const found: number[] = [];
  const frontier = [rootPid];
  while (frontier.length > 0) {
    const pid = frontier.pop();
    for (const [child, parent] of parents) {
      if (parent === pid && !found.includes(child)) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

/**
 * SIGKILL a process and everything below it. Engines start their tools in process groups of their
 * own, so killing one group is not enough; the whole tree is collected first, then killed, so a
 * child cannot escape by being re-parented half-way.
 */
export function killProcessTree(rootPid: number, options: { includeRoot: boolean }): void {
  const victims = descendantsOf(rootPid);
  if (options.includeRoot) victims.unshift(rootPid);
  for (const pid of victims) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
