import { spawnSync } from "node:child_process";
import { doctor } from "@octavo/engines";
import { printJson } from "../output.js";

function probe(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.trim().split("\n")[0];
}

/** Every program and library octavo's engines and defaults use: found or missing, with its version. */
export async function doctorCommand(): Promise<boolean> {
  const engines = await doctor();
  const redis = probe("redis-server", ["--version"]);
  const report = [
    { name: "node", found: true, version: process.versions.node, path: process.execPath, usedFor: "runtime" },
    {
      name: "redis-server",
      found: redis !== undefined,
      ...(redis ? { version: /v=(\S+)/.exec(redis)?.[1] ?? redis } : {}),
      usedFor: "the supervised queue when OCTAVO_REDIS_URL is unset",
    },
    ...engines,
  ];
  printJson(report);
  return report.every((entry) => entry.found);
}
