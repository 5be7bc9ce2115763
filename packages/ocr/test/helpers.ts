import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { JobFailure } from "@octavo/engines";
import { corpusDir } from "@octavo/testing";
import { afterAll, expect } from "vitest";

const execFileAsync = promisify(execFile);

export { corpusDir };

export function corpus(relative: string): { path: string; name: string } {
  return { path: join(corpusDir, relative), name: relative.split("/").pop() ?? relative };
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh work dir, removed when the test file ends. */
export async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "octavo-ocr-test-"));
  dirs.push(dir);
  return dir;
}

/** The text poppler extracts (an engine independent of OCRmyPDF's pikepdf). */
export async function pdfText(path: string): Promise<string> {
  const { stdout } = await execFileAsync("pdftotext", ["-enc", "UTF-8", path, "-"], { maxBuffer: 1 << 26 });
  return stdout;
}

/** The text in content-stream order (`pdftotext -raw`): unlike the default layout mode, it keeps text drawn twice
 * at the same place twice, so a doubled text layer shows. */
export async function rawText(path: string): Promise<string> {
  const { stdout } = await execFileAsync("pdftotext", ["-raw", "-enc", "UTF-8", path, "-"], {
    maxBuffer: 1 << 26,
  });
  return stdout;
}

export function words(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .split(/\s+/u)
    .filter((word) => word !== "");
}

/** Multiset overlap of the truth's words with the output's, over the truth's word count. */
export function recall(truth: string, output: string): number {
  const counts = new Map<string, number>();
  for (const word of words(output)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const truthWords = words(truth);
  let hits = 0;
  for (const word of truthWords) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      hits += 1;
      counts.set(word, left - 1);
    }
  }
  return truthWords.length === 0 ? 0 : hits / truthWords.length;
}

/**
 * Every image of a PDF as `pdfimages -list` describes it (object numbers left out) plus the SHA-256 of its
 * stream as `pdfimages -all` writes it: JPEG, JPEG 2000, JBIG2 and CCITT data byte for byte, other images as
 * decoded pixels. Equal lists = the same images, losslessly.
 */
export async function imageFingerprints(pdf: string): Promise<string[]> {
  const { stdout } = await execFileAsync("pdfimages", ["-list", pdf]);
  const rows = stdout
    .split("\n")
    .slice(2)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const cells = line.trim().split(/\s+/);
      // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
      return [...cells.slice(0, 10), ...cells.slice(12)].join(" ");
    });
  const dir = await mkdtemp(join(tmpdir(), "octavo-ocr-images-"));
  try {
    await execFileAsync("pdfimages", ["-all", pdf, join(dir, "img")]);
    const files = (await readdir(dir)).sort();
    const hashes = await Promise.all(
      files.map(async (file) => {
        const data = await readFile(join(dir, file));
        return `${file} ${createHash("sha256").update(data).digest("hex")}`;
      }),
    );
    return [...rows, ...hashes];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The skew of page 1's text lines in degrees: renders it at 60 dpi in grey and finds the angle (−5°..5°,
 * 0.1° steps) whose projection profile of dark pixels is the sharpest (the classic projection method).
 */
export async function skewDegrees(pdf: string): Promise<number> {
  const { stdout } = await execFileAsync("pdftoppm", ["-r", "60", "-gray", "-f", "1", "-l", "1", pdf], {
    encoding: "buffer",
    maxBuffer: 1 << 28,
  });
  const { width, height, pixels } = parsePgm(stdout);
  const dark: [number, number][] = [];
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) if ((pixels[y * width + x] ?? 255) < 128) dark.push([x, y]);
  }
  let best = { angle: 0, score: -1 };
  for (let tenth = -50; tenth <= 50; tenth += 1) {
    const angle = tenth / 10;
    const slope = Math.tan((angle * Math.PI) / 180);
    const bins = new Map<number, number>();
    for (const [x, y] of dark) {
      const row = Math.round(y - x * slope);
      bins.set(row, (bins.get(row) ?? 0) + 1);
    }
    let score = 0;
    for (const count of bins.values()) score += count * count;
    if (score > best.score) best = { angle, score };
  }
  return best.angle;
}

function parsePgm(data: Buffer): { width: number; height: number; pixels: Buffer } {
  const fields: string[] = [];
  let offset = 0;
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(data[offset] ?? 0x20)) && offset < data.length) offset += 1;
    if (data[offset] === 0x23) {
      while (data[offset] !== 0x0a && offset < data.length) offset += 1;
      continue;
    }
    let token = "";
    while (offset < data.length && !/\s/.test(String.fromCharCode(data[offset] ?? 0x20))) {
      token += String.fromCharCode(data[offset] ?? 0x20);
      offset += 1;
    }
    fields.push(token);
  }
  offset += 1; // the single whitespace after maxval
  const [magic, width, height] = fields;
  if (magic !== "P5") throw new Error(`pdftoppm gave ${magic}, not a binary PGM`);
  return { width: Number(width), height: Number(height), pixels: data.subarray(offset) };
}

/**
 * Lays an invisible text layer (render mode 3, like an OCR layer) with the given words over every page of a
 * PDF: a stand-in for a scan that was OCR'd before, badly.
 */
export async function withFakeTextLayer(source: string, text: string, dir: string): Promise<string> {
  const { stdout } = await execFileAsync("pdfinfo", [source]);
  const [, w = "612", h = "792"] = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(stdout) ?? [];
  const content = `BT 3 Tr /F1 14 Tf 40 ${Number(h) - 60} Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const layer = join(dir, "layer.pdf");
  await writeFile(layer, body, "latin1");
  const output = join(dir, "with-text-layer.pdf");
  await execFileAsync("qpdf", [source, "--overlay", layer, "--repeat=1", "--", output]);
  return output;
}

/** Asserts that a promise fails with a JobFailure of the given code; returns it for further checks. */
export async function failsWith(promise: Promise<unknown>, code: string): Promise<JobFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JobFailure);
  expect((error as JobFailure).code).toBe(code);
  return error as JobFailure;
}

export { execFileAsync };
