import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { corpusDir, rejectionOf, runTool, type ToolResult } from "@octavo/testing";
import { afterAll } from "vitest";
import { type EngineContext, type EngineInput, JobFailure } from "../src/index.js";

export { corpusDir };

export function corpus(relative: string, name?: string): EngineInput {
  return { path: join(corpusDir, relative), name: name ?? relative.split("/").pop() ?? relative };
}

/** A fresh work dir per call, removed when the test file ends. */
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
export async function context(extra: Partial<EngineContext> = {}): Promise<EngineContext> {
  const workDir = await mkdtemp(join(tmpdir(), "octavo-engines-test-"));
  dirs.push(workDir);
  return { workDir, ...extra };
}

/** The JobFailure a promise rejects with; fails the test if it resolves or throws anything else. */
export const failureOf = (promise: Promise<unknown>): Promise<JobFailure> => rejectionOf(promise, JobFailure);

/** Runs a checking tool directly: the tests judge outputs independently of the engines. */
export const tool = runTool;
export type { ToolResult };

export async function qpdfPages(path: string): Promise<number> {
  const result = await tool("qpdf", ["--show-npages", path]);
  return Number(result.stdout.trim());
}

export async function textChars(path: string): Promise<number> {
  const result = await tool("pdftotext", ["-q", path, "-"]);
  return result.stdout.replace(/\s+/g, "").length;
}

export async function openWithMupdf(path: string): Promise<Mupdf.PDFDocument> {
  const mupdf = await loadMupdf();
  return new mupdf.PDFDocument(await readFile(path));
}

export interface FlatBookmark {
  depth: number;
  title: string | undefined;
  page: number;
}

/** The outline flattened in reading order, with each item's 0-based target page (-1: none). */
export function flatOutline(doc: Mupdf.PDFDocument): FlatBookmark[] {
  const flat: FlatBookmark[] = [];
  const walk = (items: NonNullable<ReturnType<Mupdf.PDFDocument["loadOutline"]>>, depth: number): void => {
    for (const item of items) {
      flat.push({ depth, title: item.title, page: item.page ?? -1 });
      walk(item.down ?? [], depth + 1);
    }
  };
  walk(doc.loadOutline() ?? [], 0);
  return flat;
}
