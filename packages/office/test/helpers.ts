import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { JobFailure } from "@octavo/engines";
import { corpusDir, rejectionOf } from "@octavo/testing";
import { afterAll } from "vitest";

const execFileAsync = promisify(execFile);

export { corpusDir };

export function corpus(relative: string): { path: string; name: string } {
  return { path: join(corpusDir, relative), name: relative.split("/").pop() ?? relative };
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory, removed when the test file ends. */
export async function tempDir(prefix = "octavo-office-test-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Logger that keeps what it was told, for assertions on starts, restarts and crashes. */
export function recordingLogger(): {
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
  entries: { level: "info" | "warn"; fields: Record<string, unknown>; message: string }[];
} {
  const entries: { level: "info" | "warn"; fields: Record<string, unknown>; message: string }[] = [];
  return {
    entries,
    logger: {
      info: (fields, message) =>
        entries.push({ level: "info", fields: fields as Record<string, unknown>, message }),
      warn: (fields, message) =>
        entries.push({ level: "warn", fields: fields as Record<string, unknown>, message }),
    },
  };
}

export async function pdfPages(path: string): Promise<number> {
  const { stdout } = await execFileAsync("qpdf", ["--show-npages", path]);
  return Number(stdout.trim());
}

export async function pdfText(path: string): Promise<string> {
  const { stdout } = await execFileAsync("pdftotext", ["-enc", "UTF-8", path, "-"], {
    maxBuffer: 256 * 1024 ** 2,
  });
  return stdout;
}

const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Comparable words: NFKC (ligatures, full-width forms), lower case, runs of letters and digits of two or
 * more characters; CJK text, which has no spaces, counts character by character.
 */
export function words(text: string): Set<string> {
  const found = new Set<string>();
  for (const run of text
    .normalize("NFKC")
    .toLowerCase()
    .match(/[\p{L}\p{N}\p{M}]+/gu) ?? []) {
    const latin = run.replace(new RegExp(cjk.source, "gu"), " ").trim();
    for (const char of run) if (cjk.test(char)) found.add(char);
    for (const word of latin.split(/\s+/)) if (word.length >= 2) found.add(word);
  }
  return found;
}

/** The share of the source's words found in the PDF's text (undefined when the source has none). */
export function recall(source: Set<string>, pdf: Set<string>): number | undefined {
  if (source.size === 0) return undefined;
  let hits = 0;
  for (const word of source) if (pdf.has(word)) hits += 1;
  return hits / source.size;
}

/** The JobFailure a promise rejects with; fails the test if it resolves or throws anything else. */
export const failureOf = (promise: Promise<unknown>): Promise<JobFailure> => rejectionOf(promise, JobFailure);

/**
 * PIDs of the soffice.bin processes whose profile lies under `workDir`, one per LibreOffice instance.
 * Each instance runs in a process group of its own; within it soffice.bin forks helpers now and then
 * (between fork and exec they still read as soffice.bin), and oosplash may start a second soffice.bin
 * while the first is exiting. Those belong to the same instance and are not counted again.
 */
export async function sofficePids(workDir: string): Promise<number[]> {
  const { stdout } = await execFileAsync("ps", ["-eo", "pid=,pgid=,args="]);
  const byGroup = new Map<number, number>();
  for (const line of stdout.split("\n")) {
    if (!line.includes("soffice.bin") || !line.includes(workDir)) continue;
    const [pid, pgid] = line.trim().split(/\s+/).map(Number);
    if (pid === undefined || pgid === undefined) continue;
    byGroup.set(pgid, Math.min(pid, byGroup.get(pgid) ?? pid));
  }
  return [...byGroup.values()];
}
