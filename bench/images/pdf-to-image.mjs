#!/usr/bin/env node
// PDF to Image: @octavo/images' pdfToImage (MuPDF draws; PNG by MuPDF, JPEG by sharp) against poppler's
// pdftoppm, on the same files, pages and dpi, PNG and JPEG (quality 85), run alternately. Prints, per file
// and in all: median seconds per page, median output bytes, and the ratio ours / pdftoppm; then where our
// time goes (drawing, MuPDF's PNG encoder, sharp's JPEG encoder, and on the same pixels MuPDF's JPEG
// encoder, which sharp's replaced).
//
//   pnpm --filter @octavo/images build && node bench/images/pdf-to-image.mjs [--runs 5] [--dpi 150]
//
// Files: the quality test's rule (packages/images/test/helpers.ts, qualitySample): in each of
// general/, office/*.reference.pdf, tables/ and scanned/ (MANIFEST.tsv order), the files at 0, 1/3 and
// 2/3 of the group; their first two pages. pdftoppm gets -cropbox so both draw the visible page (its
// default is the MediaBox). Goal: ours no slower than 1.5 × pdftoppm.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import { median } from "../support.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpusDir = join(repoRoot, "..", "shared", "corpus");
const packageDir = join(repoRoot, "packages", "images");
const { pdfToImage } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);
// One MuPDF instance for the operation and the breakdown (a second copy of MuPDF.js would take over
// the first one's callbacks); sharp from the package's own node_modules.
const { loadMupdf } = await import(
  pathToFileURL(join(repoRoot, "packages", "mupdf", "dist", "index.js")).href
);
const mupdf = await loadMupdf();
const sharp = createRequire(join(packageDir, "package.json"))("sharp");
const execFileAsync = promisify(execFile);

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, dpi: { type: "string", default: "150" } },
});
const runs = Number(values.runs);
const dpi = Number(values.dpi);
const quality = 85;
const pagesPerFile = 2;

/** The quality test's sample: per group, the files at 0, 1/3 and 2/3 of the way through it. */
async function sample() {
  const manifest = await readFile(join(corpusDir, "MANIFEST.tsv"), "utf8");
  const pdfs = manifest
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t")[0] ?? "")
    .filter((path) => path.endsWith(".pdf"));
  const groups = [
    (path) => path.startsWith("general/"),
    (path) => path.startsWith("office/") && path.endsWith(".reference.pdf"),
    (path) => path.startsWith("tables/"),
    (path) => path.startsWith("scanned/"),
  ];
  return groups.flatMap((inGroup) => {
    const members = pdfs.filter(inGroup);
    const picks = new Set([0, 1, 2].map((third) => Math.floor((third * members.length) / 3)));
    return [...picks].map((index) => members[index]);
  });
}

async function pageCount(path) {
  const { stdout } = await execFileAsync("pdfinfo", [path]);
  return Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
}

async function bytesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => stat(join(entry.parentPath, entry.name))),
  );
  return sizes.reduce((sum, { size }) => sum + size, 0);
}

/** Runs `task` in a fresh directory; returns its seconds and the bytes it wrote. */
async function measure(task) {
  const dir = await mkdtemp(join(tmpdir(), "octavo-bench-images-"));
  try {
    const started = performance.now();
    await task(dir);
    const seconds = (performance.now() - started) / 1000;
    return { seconds, bytes: await bytesUnder(dir) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const contenders = {
  "ours png": (file, pages) => (dir) =>
    pdfToImage(file, { format: "png", dpi, quality, pages: `1-${pages}` }, { workDir: dir }),
  "pdftoppm png": (file, pages) => (dir) =>
    execFileAsync("pdftoppm", [
      "-r",
      `${dpi}`,
      "-png",
      "-cropbox",
      "-f",
      "1",
      "-l",
      `${pages}`,
      file.path,
      join(dir, "p"),
    ]),
  "ours jpeg": (file, pages) => (dir) =>
    pdfToImage(file, { format: "jpeg", dpi, quality, pages: `1-${pages}` }, { workDir: dir }),
  "pdftoppm jpeg": (file, pages) => (dir) =>
    execFileAsync("pdftoppm", [
      ...["-r", `${dpi}`, "-jpeg", "-jpegopt", `quality=${quality}`, "-cropbox"],
      ...["-f", "1", "-l", `${pages}`, file.path, join(dir, "p")],
    ]),
};

const files = [];
for (const relative of await sample()) {
  const path = join(corpusDir, relative);
  files.push({
    relative,
    input: { path, name: basename(path) },
    pages: Math.min(pagesPerFile, await pageCount(path)),
  });
}

// One warm-up pass (MuPDF's instance, the page cache of the files), then the runs, contenders alternating.
const samples = new Map(); // `${file}|${contender}` → [{seconds, bytes}]
for (let run = -1; run < runs; run += 1) {
  for (const file of files) {
    for (const [name, make] of Object.entries(contenders)) {
      const result = await measure(make(file.input, file.pages));
      if (run < 0) continue;
      const key = `${file.relative}|${name}`;
      samples.set(key, [...(samples.get(key) ?? []), result]);
    }
  }
}

const medianOf = (file, name, field) => median(samples.get(`${file.relative}|${name}`).map((s) => s[field]));
const totalPages = files.reduce((sum, file) => sum + file.pages, 0);
const ratio = (a, b) => `×${(a / b).toFixed(2)}`;

console.log(
  `\n### ${dpi} dpi, first ≤ ${pagesPerFile} pages of ${files.length} files (${totalPages} pages), median of ${runs} runs\n`,
);
for (const format of ["png", "jpeg"]) {
  console.log(`\n#### ${format.toUpperCase()}${format === "jpeg" ? ` (quality ${quality})` : ""}\n`);
  console.log(
    "| File | Pages | Ours s/page | pdftoppm s/page | Time ours/pdftoppm | Ours bytes | pdftoppm bytes | Bytes ours/pdftoppm |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  let oursSeconds = 0;
  let theirSeconds = 0;
  let oursBytes = 0;
  let theirBytes = 0;
  for (const file of files) {
    const ours = {
      s: medianOf(file, `ours ${format}`, "seconds"),
      b: medianOf(file, `ours ${format}`, "bytes"),
    };
    const theirs = {
      s: medianOf(file, `pdftoppm ${format}`, "seconds"),
      b: medianOf(file, `pdftoppm ${format}`, "bytes"),
    };
    oursSeconds += ours.s;
    theirSeconds += theirs.s;
    oursBytes += ours.b;
    theirBytes += theirs.b;
    console.log(
      `| ${file.relative} | ${file.pages} | ${(ours.s / file.pages).toFixed(3)} | ${(theirs.s / file.pages).toFixed(3)} | ${ratio(ours.s, theirs.s)} | ${ours.b} | ${theirs.b} | ${ratio(ours.b, theirs.b)} |`,
    );
  }
  console.log(
    `| **all** | ${totalPages} | ${(oursSeconds / totalPages).toFixed(3)} | ${(theirSeconds / totalPages).toFixed(3)} | **${ratio(oursSeconds, theirSeconds)}** | ${oursBytes} | ${theirBytes} | ${ratio(oursBytes, theirBytes)} |`,
  );
}

// Where our time goes, on the same pages: milliseconds per million pixels (median over the runs).
const stages = { draw: [], "MuPDF PNG": [], "sharp JPEG": [], "MuPDF JPEG (replaced)": [] };
let megapixels = 0;
for (let run = 0; run < runs; run += 1) {
  const totals = Object.fromEntries(Object.keys(stages).map((stage) => [stage, 0]));
  megapixels = 0;
  for (const file of files) {
    const doc = new mupdf.PDFDocument(await readFile(file.input.path));
    try {
      for (let index = 0; index < file.pages; index += 1) {
        const page = doc.loadPage(index);
        let started = performance.now();
        const scale = mupdf.Matrix.scale(dpi / 72, dpi / 72);
        const pixmap = page.toPixmap(scale, mupdf.ColorSpace.DeviceRGB, false, true);
        totals.draw += performance.now() - started;
        const [width, height] = [pixmap.getWidth(), pixmap.getHeight()];
        megapixels += (width * height) / 1e6;
        started = performance.now();
        pixmap.asPNG();
        totals["MuPDF PNG"] += performance.now() - started;
        started = performance.now();
        pixmap.asJPEG(quality);
        totals["MuPDF JPEG (replaced)"] += performance.now() - started;
        started = performance.now();
        const raw = Buffer.from(pixmap.getPixels());
        await sharp(raw, { raw: { width, height, channels: 3 } })
          .jpeg({ quality })
          .toBuffer();
        totals["sharp JPEG"] += performance.now() - started;
        pixmap.destroy();
        page.destroy();
      }
    } finally {
      doc.destroy();
    }
  }
  for (const [stage, ms] of Object.entries(totals)) stages[stage].push(ms / megapixels);
}
console.log(
  `\n#### Our stages, ms per million pixels (${megapixels.toFixed(1)} MP in all), median of ${runs} runs\n`,
);
console.log("| Stage | ms/MP |\n|---|---|");
for (const [stage, values] of Object.entries(stages))
  console.log(`| ${stage} | ${median(values).toFixed(1)} |`);
