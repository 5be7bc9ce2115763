import { readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type EngineContext, type EngineInput, JobFailure, type PdfDocument } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath, createTempDir, readManifest, rejectionOf } from "@octavo/testing";
import { afterAll } from "vitest";

// The harness and the inputs of the package's tests; readers.ts reads what the operations wrote.

const disposals: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(disposals.map((dispose) => dispose()));
});

/** A fresh directory, removed when the test file ends. */
export async function scratch(): Promise<string> {
  const dir = await createTempDir("octavo-images-test-");
  disposals.push(dir.dispose);
  return dir.path;
}

export async function context(extra: Partial<EngineContext> = {}): Promise<EngineContext> {
  return { workDir: await scratch(), ...extra };
}

/** The JobFailure a promise rejects with; fails the test if it resolves or throws anything else. */
export const failureOf = (promise: Promise<unknown>): Promise<JobFailure> => rejectionOf(promise, JobFailure);

/** Every file under `dir`, at any depth. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

export function corpus(relative: string, name?: string): EngineInput {
  return { path: corpusPath(relative), name: name ?? basename(relative) };
}

export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "images");

/** A fixture image (see fixtures/images/MANIFEST.tsv), optionally under another client file name. */
export function fixture(file: string, name?: string): EngineInput {
  return { path: join(fixturesDir, file), name: name ?? file };
}

/**
 * The corpus files of the quality comparison, chosen by a rule and not by their scores: in each group
 * (general/, office/*.reference.pdf, tables/, scanned/ PDFs, in MANIFEST.tsv order), the files at
 * 0, 1/3 and 2/3 of the way through the group.
 */
export function qualitySample(): string[] {
  const groups: ((path: string) => boolean)[] = [
    (path) => path.startsWith("general/"),
    (path) => path.startsWith("office/") && path.endsWith(".reference.pdf"),
    (path) => path.startsWith("tables/"),
    (path) => path.startsWith("scanned/"),
  ];
  const pdfs = readManifest()
    .map((entry) => entry.path)
    .filter((path) => path.endsWith(".pdf"));
  return groups.flatMap((inGroup) => {
    const members = pdfs.filter(inGroup);
    const picks = new Set([0, 1, 2].map((third) => Math.floor((third * members.length) / 3)));
    return [...picks].flatMap((index) => members[index] ?? []);
  });
}

/** A PDF of blank pages of the given sizes in points. */
export function blankPagesPdf(dir: string, sizes: [number, number][]): Promise<EngineInput> {
  return mupdfPdf(dir, "blank-pages.pdf", (doc) => {
    for (const [width, height] of sizes) doc.insertPage(-1, doc.addPage([0, 0, width, height], 0, {}, ""));
  });
}

/** A one-page PDF whose only mark is a red square annotation (its appearance stream, not page content). */
export function annotatedPdf(dir: string): Promise<EngineInput> {
  return mupdfPdf(dir, "annotated.pdf", (doc) => {
    doc.insertPage(-1, doc.addPage([0, 0, 200, 200], 0, {}, ""));
    const page = doc.loadPage(0);
    const annotation = page.createAnnotation("Square");
    annotation.setRect([50, 50, 150, 150]);
    annotation.setColor([1, 0, 0]);
    annotation.setInteriorColor([1, 0, 0]);
    annotation.update();
    page.destroy();
  });
}

/** A PDF that `build` makes in a new MuPDF document, saved as `dir/name`. */
async function mupdfPdf(dir: string, name: string, build: (doc: PdfDocument) => void): Promise<EngineInput> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument();
  try {
    build(doc);
    const path = join(dir, name);
    await writeFile(path, doc.saveToBuffer("").asUint8Array());
    return { path, name };
  } finally {
    doc.destroy();
  }
}
