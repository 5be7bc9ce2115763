// Small helpers the benchmarks share.
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The median of the finite numbers among `values`; null when there are none. */
export function median(values) {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A loopback port nothing listens on right now. */
export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// Linux's clock ticks per second for /proc CPU times (USER_HZ, 100 on every Linux build we run on).
const TICKS_PER_SECOND = 100;

/** CPU seconds the whole machine spent busy (everything but idle and I/O wait) since boot. */
export function machineBusySeconds() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used by a process and every descendant: the live ones' own time, plus the time of the
 * children each has already reaped (Linux adds a reaped child's own reaped children to it).
 */
export function treeCpuSeconds(pid) {
  let ticks = 0;
  const visit = (id) => {
    let stat;
    try {
      stat = readFileSync(`/proc/${id}/stat`, "utf8");
    } catch {
      return; // ended meanwhile: its time is in its parent's reaped children
    }
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // After the name: state ppid … utime(12) stime(13) cutime(14) cstime(15), counted from state = 1.
    ticks += fields[11] + fields[12] + fields[13] + fields[14];
    for (const task of readdirSync(`/proc/${id}/task`, { withFileTypes: true })) {
      let children = "";
      try {
        children = readFileSync(`/proc/${id}/task/${task.name}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children.trim().split(/\s+/).filter(Boolean)) visit(Number(child));
    }
  };
  visit(pid);
  return ticks / TICKS_PER_SECOND;
}
