import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { corpusPath, wordRecall, wordSet } from "@octavo/testing";
import { strFromU8, unzipSync } from "fflate";

// Word recall is shared with the bench (bench/pdf-office), so tests and bench figures agree.
export { corpusPath, wordRecall, wordSet };

/** A fresh work dir per test, removed afterwards by `cleanup`. */
export async function workDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "octavo-pdf-office-test-"));
}

export async function cleanup(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The parts of an OOXML package (docx, pptx, xlsx), by path. */
export async function readZip(path: string): Promise<Record<string, Uint8Array>> {
  return unzipSync(new Uint8Array(await readFile(path)));
}

export function part(zip: Record<string, Uint8Array>, name: string): string {
  const bytes = zip[name];
  if (bytes === undefined) throw new Error(`${name} is missing from the package`);
  return strFromU8(bytes);
}

/** The text of every `<tag>…</tag>` element (e.g. "w:t", "a:t"), entities decoded. */
export function elementTexts(xml: string, tag: string): string[] {
  const pattern = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`, "g");
  return [...xml.matchAll(pattern)].map((match) => decodeEntities(match[1] ?? ""));
}

export function count(xml: string, pattern: RegExp): number {
  return [...xml.matchAll(new RegExp(pattern.source, "g"))].length;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, "&");
}

/** What poppler's `pdftotext -layout` reads from the PDF: the reference text for recall. */
export function pdftotext(path: string): string {
  const result = spawnSync("pdftotext", ["-layout", "-enc", "UTF-8", path, "-"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`pdftotext failed on ${path}: ${result.stderr}`);
  return result.stdout;
}

/** Visible page sizes in points from poppler (`pdfinfo`), turned by each page's /Rotate. */
export function pdfPageSizes(path: string): { width: number; height: number }[] {
  const result = spawnSync("pdfinfo", ["-f", "1", "-l", "9999", path], { encoding: "utf8" });
  const rotations = [...result.stdout.matchAll(/Page\s+\d+ rot:\s+(\d+)/g)].map((match) => Number(match[1]));
  return [...result.stdout.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/g)].map((match, index) => {
    const turned = (rotations[index] ?? 0) % 180 === 90;
    const width = Number(match[1]);
    const height = Number(match[2]);
    return turned ? { width: height, height: width } : { width, height };
  });
}

/** The PDF's text lines in reading order (pdftotext's default mode keeps columns apart). */
export function pdfTextLines(path: string): number {
  const result = spawnSync("pdftotext", ["-enc", "UTF-8", path, "-"], { encoding: "utf8" });
  return result.stdout.split("\n").filter((line) => line.trim() !== "").length;
}
