import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { corpusDir } from "@octavo/testing";
import { ssim } from "ssim.js";

const mupdf = await loadMupdf();

export { corpusDir };

export function corpus(path: string): string {
  return join(corpusDir, path);
}

/** A fresh work dir per test, removed afterwards by `cleanup`. */
export async function workDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "octavo-compress-test-"));
}

export async function cleanup(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export interface Facts {
  pages: number;
  links: number;
  outline: number;
  chars: number;
}

export async function facts(path: string): Promise<Facts> {
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    const pages = doc.countPages();
    let links = 0;
    let chars = 0;
    for (let index = 0; index < pages; index += 1) {
      const page = doc.loadPage(index);
      links += page.getLinks().length;
      const text = page.toStructuredText("");
      chars += text.asText().replace(/\s+/g, "").length;
      text.destroy();
      page.destroy();
    }
    let outline = 0;
    const walk = (items: { down?: unknown[] }[] | null | undefined): void => {
      for (const item of items ?? []) {
        outline += 1;
        walk(item.down as { down?: unknown[] }[] | undefined);
      }
    };
    walk(doc.loadOutline());
    return { pages, links, outline, chars };
  } finally {
    doc.destroy();
  }
}

interface Rendered {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

function render(doc: Mupdf.PDFDocument, index: number, dpi: number): Rendered {
  const page = doc.loadPage(index);
  const pixmap = page.toPixmap(
    mupdf.Matrix.scale(dpi / 72, dpi / 72),
    mupdf.ColorSpace.DeviceRGB,
    false,
    true,
  );
  try {
    const width = pixmap.getWidth();
    const height = pixmap.getHeight();
    const stride = pixmap.getStride();
    const source = pixmap.getPixels();
    const data = new Uint8ClampedArray(width * height * 4);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const from = y * stride + x * 3;
        const to = (y * width + x) * 4;
        data[to] = source[from] ?? 0;
        data[to + 1] = source[from + 1] ?? 0;
        data[to + 2] = source[from + 2] ?? 0;
        data[to + 3] = 255;
      }
    }
    return { data, width, height };
  } finally {
    pixmap.destroy();
    page.destroy();
  }
}

/** Mean SSIM of rendered pages (at most `maxPages`, spread evenly), full resolution at `dpi`. */
export async function meanSsim(a: string, b: string, options: { dpi?: number; maxPages?: number } = {}) {
  const dpi = options.dpi ?? 100;
  const docA = new mupdf.PDFDocument(await readFile(a));
  const docB = new mupdf.PDFDocument(await readFile(b));
  try {
    const pages = Math.min(docA.countPages(), docB.countPages());
    const step = Math.max(1, Math.ceil(pages / (options.maxPages ?? 6)));
    const scores: number[] = [];
    let identical = true;
    for (let index = 0; index < pages; index += step) {
      const x = render(docA, index, dpi);
      const y = render(docB, index, dpi);
      if (x.width !== y.width || x.height !== y.height) {
        scores.push(0);
        identical = false;
        continue;
      }
      if (identical && !Buffer.from(x.data.buffer).equals(Buffer.from(y.data.buffer))) identical = false;
      scores.push(ssim(x, y, { downsample: false }).mssim);
    }
    return { mean: scores.reduce((sum, value) => sum + value, 0) / scores.length, identical };
  } finally {
    docA.destroy();
    docB.destroy();
  }
}

/**
 * Pixels whose R, G and B differ by more than 2 (MuPDF's colour management renders some DeviceGray content
 * as e.g. 242, 243, 242), over every page rendered at `dpi`.
 */
export async function colourPixels(path: string, dpi = 50): Promise<number> {
  const doc = new mupdf.PDFDocument(await readFile(path));
  try {
    let coloured = 0;
    for (let index = 0; index < doc.countPages(); index += 1) {
      const { data } = render(doc, index, dpi);
      for (let at = 0; at < data.length; at += 4) {
        const red = data[at] ?? 0;
        const green = data[at + 1] ?? 0;
        const blue = data[at + 2] ?? 0;
        if (Math.max(red, green, blue) - Math.min(red, green, blue) > 2) coloured += 1;
      }
    }
    return coloured;
  } finally {
    doc.destroy();
  }
}

/** `qpdf --check`'s exit code: 0 (no problems) or 3 (warnings only) mean the file is sound. */
export function qpdfCheckExit(path: string): number | null {
  return spawnSync("qpdf", ["--check", "--", path], { stdio: "ignore", timeout: 60_000 }).status;
}
