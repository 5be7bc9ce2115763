import { type ChildProcess, spawn } from "node:child_process";
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
