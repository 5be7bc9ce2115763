import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type WorkerClass as CatalogueClass,
  type ClassQueue,
  workerClasses as catalogueClasses,
  queuesOfClass,
} from "@octavo/contracts";

/** Helpers shared by the Kubernetes and monitoring tests. */

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** A worker class as infra names its role and image (`worker-heavy`): one per class of the catalogue. */
export type WorkerClass = `worker-${CatalogueClass}`;

const catalogueClassOfRole = new Map(catalogueClasses.map((name) => [`worker-${name}` as WorkerClass, name]));
export const workerClasses: WorkerClass[] = [...catalogueClassOfRole.keys()];
export const roles = ["api", ...workerClasses];

/** The catalogue's class of a role: `worker-heavy` → `heavy`. */
export function catalogueClassOf(role: WorkerClass): CatalogueClass {
  const name = catalogueClassOfRole.get(role);
  if (name === undefined) throw new Error(`${role} is no worker class of the catalogue`);
  return name;
}

/** The queues a role's workers take, each with its count where the class sets one. */
export function queuesOfRole(role: WorkerClass): ClassQueue[] {
  return queuesOfClass(catalogueClassOf(role));
}

/** The class a command line names: `octavo worker --class heavy` → "heavy"; undefined without one. */
export function classArgument(args: readonly string[]): string | undefined {
  const at = args.indexOf("--class");
  return at < 0 ? undefined : args[at + 1];
}

/**
 * Runs a tool with a bare environment (and `extraEnv`), so the machine's variables cannot change what it
 * does.
 */
export function run(command: string, args: string[], input?: string, extraEnv: Record<string, string> = {}) {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C.UTF-8",
    ...extraEnv,
  };
  return spawnSync(command, args, {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
}
