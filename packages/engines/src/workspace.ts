import { mkdtemp } from "node:fs/promises";
import { join, resolve } from "node:path";

/** A fresh directory inside the job's work dir, so calls sharing a work dir never collide. */
export function freshDir(workDir: string, prefix: string): Promise<string> {
  return mkdtemp(join(resolve(workDir), `${prefix}-`));
}
