import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type EngineContext, type EngineInput, JobFailure, withPdf } from "@octavo/engines";
import { corpusPath, rejectionOf, runTool, type ToolResult } from "@octavo/testing";
import { afterAll } from "vitest";

const execFileAsync = promisify(execFile);

/** A corpus file as an engine input, named like the file unless `name` says otherwise. */
export function corpus(relative: string, name?: string): EngineInput {
  return { path: corpusPath(relative), name: name ?? relative.split("/").pop() ?? relative };
}

/** A fresh work dir per call, removed when the test file ends. */
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
export async function context(extra: Partial<EngineContext> = {}): Promise<EngineContext> {
  const workDir = await mkdtemp(join(tmpdir(), "octavo-edit-test-"));
  dirs.push(workDir);
  return { workDir, ...extra };
}

/** The JobFailure a promise rejects with; fails the test if it resolves or throws anything else. */
export const failureOf = (promise: Promise<unknown>): Promise<JobFailure> => rejectionOf(promise, JobFailure);

/** Runs a checking tool directly: the tests judge outputs independently of the engines. */
export const tool = runTool;
export type { ToolResult };

/** `qpdf --check`: code 0 is a clean file, 3 one with warnings, 2 errors. */
export function qpdfCheck(path: string): Promise<ToolResult> {
  return tool("qpdf", ["--check", path]);
}

export async function qpdfPages(path: string): Promise<number> {
  const result = await tool("qpdf", ["--show-npages", path]);
  return Number(result.stdout.trim());
}

/**
 * poppler's text of the file, or of pages `first`..`last` (1-based); `extra` adds options such as
 * "-raw". Pages are separated by form feeds.
 */
export async function pdftotext(
  path: string,
  pages: { first?: number; last?: number } = {},
  extra: string[] = [],
): Promise<string> {
  const range = [
    ...(pages.first === undefined ? [] : ["-f", String(pages.first)]),
    ...(pages.last === undefined ? [] : ["-l", String(pages.last)]),
  ];
  const result = await tool("pdftotext", ["-q", "-enc", "UTF-8", ...range, ...extra, path, "-"]);
  if (result.code !== 0) throw new Error(`pdftotext failed on ${path}: ${result.stderr}`);
  return result.stdout;
}

/** The text of each page, in order (pdftotext's form feeds split it). */
export async function pageTexts(path: string, extra: string[] = []): Promise<string[]> {
  const pages = (await pdftotext(path, {}, extra)).split("\f");
  return pages.slice(0, -1);
}

/** A page drawn as a viewer shows it (the CropBox, turned by /Rotate): RGB, 3 bytes a pixel. */
export interface Rendering {
  width: number;
  height: number;
  /** Pixels per point. */
  scale: number;
  pixels: Uint8Array;
}

/** Renders page `page` (1-based) with pdftoppm at `dpi` (72: one pixel a point), its CropBox as viewers do. */
export async function renderPage(path: string, page: number, dpi = 72): Promise<Rendering> {
  const { stdout } = await execFileAsync(
    "pdftoppm",
    ["-q", "-cropbox", "-r", String(dpi), "-f", String(page), "-l", String(page), path],
    { encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
  );
  return parsePpm(stdout, dpi / 72);
}

/** Binary PPM (P6, maxval 255), as pdftoppm writes it. */
function parsePpm(data: Buffer, scale: number): Rendering {
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4) {
    while (at < data.length && /\s/.test(String.fromCharCode(data[at] ?? 0))) at += 1;
    if (data[at] === 0x23) {
      while (at < data.length && data[at] !== 0x0a) at += 1; // a comment line
      continue;
    }
    const start = at;
    while (at < data.length && !/\s/.test(String.fromCharCode(data[at] ?? 0))) at += 1;
    fields.push(data.subarray(start, at).toString("latin1"));
  }
  const [magic, width, height, maxval] = fields;
  if (magic !== "P6" || maxval !== "255") throw new Error(`not an 8-bit PPM: ${fields.join(" ")}`);
  const w = Number(width);
  const h = Number(height);
  return { width: w, height: h, scale, pixels: new Uint8Array(data.subarray(at + 1, at + 1 + w * h * 3)) };
}

/** The bounding box [x0, y0, x1, y1) of the pixels that differ by more than `tolerance` in a channel. */
export function changedArea(
  before: Rendering,
  after: Rendering,
  tolerance = 8,
): [number, number, number, number] | undefined {
  if (before.width !== after.width || before.height !== after.height) {
    throw new Error(
      `renderings differ in size: ${before.width}×${before.height}, ${after.width}×${after.height}`,
    );
  }
  let [x0, y0, x1, y1] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -1, -1];
  for (let y = 0; y < after.height; y += 1) {
    for (let x = 0; x < after.width; x += 1) {
      const at = (y * after.width + x) * 3;
      for (let channel = 0; channel < 3; channel += 1) {
        if (Math.abs((before.pixels[at + channel] ?? 0) - (after.pixels[at + channel] ?? 0)) > tolerance) {
          [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
          break;
        }
      }
    }
  }
  return x1 < 0 ? undefined : [x0, y0, x1, y1];
}

/** Where `output` differs from `input` on page `page` (1-based) as poppler draws both, and the drawings. */
export async function pageChange(input: string, output: string, page = 1) {
  const before = await renderPage(input, page);
  const after = await renderPage(output, page);
  return { area: changedArea(before, after), width: after.width, height: after.height, before, after };
}

/** A line of MuPDF's structured text: in display space (the page as a viewer shows it, y down). */
export interface TextLine {
  text: string;
  /** The writing direction: [1, 0] reads left to right, upright. */
  dir: [number, number];
  bbox: [number, number, number, number];
}

/** The text lines MuPDF finds on page `index` (0-based). */
export async function textLines(path: string, index: number): Promise<TextLine[]> {
  return withPdf(path, (doc) => {
    const page = doc.loadPage(index);
    const text = page.toStructuredText("preserve-whitespace");
    try {
      const lines: TextLine[] = [];
      let current: TextLine | undefined;
      text.walk({
        beginLine(bbox, _wmode, dir) {
          current = { text: "", dir: [dir[0], dir[1]], bbox: [bbox[0], bbox[1], bbox[2], bbox[3]] };
        },
        onChar(char) {
          if (current) current.text += char;
        },
        endLine() {
          if (current) lines.push(current);
          current = undefined;
        },
      });
      return lines;
    } finally {
      text.destroy();
      page.destroy();
    }
  });
}
