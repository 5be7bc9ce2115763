import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PIPELINE } from "@octavo/contracts";

/** Helpers shared by the Kubernetes and monitoring tests. */

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/**
 * The queues of each worker class, as its `octavo worker --queues` lists them. Together: every job
 * kind of `@octavo/contracts` (the operations and the pipeline) and the webhook deliveries, each once.
 */
export const workerQueues = {
  "worker-pdf": [
    "merge",
    "split",
    "rotate",
    "protect",
    "unlock",
    "repair",
    "watermark",
    "page-numbers",
    "flatten",
    "metadata",
  ],
  "worker-office": ["word-to-pdf", "powerpoint-to-pdf", "excel-to-pdf", "html-to-pdf"],
  "worker-heavy": [
    "ocr",
    "compress",
    "pdf-to-pdfa",
    "pdf-to-word",
    "pdf-to-powerpoint",
    "pdf-to-excel",
    "pdf-to-image",
    "image-to-pdf",
  ],
  "worker-webhooks": ["webhooks"],
  // A pipeline's steps may be any operations, all run on the one worker that takes it: every engine.
  "worker-pipeline": [PIPELINE],
} as const;
export type WorkerClass = keyof typeof workerQueues;
export const workerClasses = Object.keys(workerQueues) as WorkerClass[];
export const roles = ["api", ...workerClasses];

/** `--queues ocr=1,compress=2` → each queue's name and its own count, when it has one. */
export function queueEntries(args: readonly string[]): { name: string; count: number | undefined }[] {
  const value = args[args.indexOf("--queues") + 1] ?? "";
  return value.split(",").map((entry) => {
    const [name = "", count] = entry.split("=");
    return { name, count: count === undefined ? undefined : Number(count) };
  });
}

/** Runs a tool with a bare environment, so the machine's variables cannot change what it does. */
export function run(command: string, args: string[], input?: string) {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C.UTF-8",
  };
  return spawnSync(command, args, {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
}
