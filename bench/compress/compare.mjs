#!/usr/bin/env node
// Compression: @octavo/compress's three levels against Ghostscript's /ebook and /screen presets, in one run
// on the same corpus files. For every output: size as a share of the input, and visual similarity of the
// rendered pages (SSIM at 100 dpi, full resolution, ssim.js on MuPDF renders; mean over the pages, and the
// worst page), plus the checks every result must pass (page count, text kept, links, bookmarks).
//
//   pnpm --filter @octavo/compress build && node bench/compress/compare.mjs [--pages 30] [--files a.pdf,b.pdf] [--stages]
//
// --stages prints each recommended job's stages (start → end, ms from the job's start) under its file's line:
// what runs side by side and which stage holds the job up.
//
// Goals: recommended ≤ 40 % of the input at SSIM ≥ 0.95 and extreme ≤ 15 % at SSIM ≥ 0.85 on image-heavy
// files; on every file, recommended smaller than /ebook at equal or better SSIM; and in time, the median
// seconds per file of each level at most 1.5× /ebook's (printed last, with the per-file ratios).
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "../support.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpusDir = join(repoRoot, "..", "shared", "corpus");
const packageDir = join(repoRoot, "packages", "compress");
const { compress } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);
// The bench lives outside the package; its libraries come from the package's own node_modules.
// One MuPDF instance for the engines and the bench's own checks (@octavo/mupdf: a second copy of MuPDF.js
// in the process would take over the first one's callbacks).
const { loadMupdf } = await import(
  pathToFileURL(join(repoRoot, "packages", "mupdf", "dist", "index.js")).href
);
const mupdf = await loadMupdf();
const { ssim } = await import(
  pathToFileURL(join(packageDir, "node_modules", "ssim.js", "dist", "index.js")).href
);

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "30" },
    files: { type: "string" },
    stages: { type: "boolean", default: false },
  },
});
const maxPages = Number(values.pages);
// Image-heavy: most of the bytes are continuous-tone images (scans, photos).
const imageHeavy = [
  "scanned/docling_old_newspaper.pdf",
  "general/pdfjs_issue19971_jpn.pdf",
  "general/pikepdf_form_210966.pdf",
  "scanned/ocrmypdf_multipage.pdf",
  "scanned/pdfjs_issue7229.pdf",
  "scanned/pikepdf_congress.pdf",
  "scanned/paperless_multi-page-images.pdf",
  "scanned/rapidocr_text_vertical_words.pdf",
];
// Text-heavy or mixed: fonts, text and vector graphics carry much of the size, so only the /ebook goal applies.
const textHeavy = [
  "general/docling_redp5110_sampled.pdf",
  "general/govdocs_error_set_2_064034.pdf",
  "general/samplefiles_GeoTopo-komprimiert.pdf",
  "general/pdfjs_tracemonkey_with_annotations.pdf",
];
const files = values.files ? values.files.split(",") : [...imageHeavy, ...textHeavy];
const dpi = 100;

function openPdf(bytes) {
  return new mupdf.PDFDocument(bytes);
}

/** Page `index` at 100 dpi as RGBA for ssim.js. */
function render(doc, index) {
  const page = doc.loadPage(index);
  const pixmap = page.toPixmap(
    mupdf.Matrix.scale(dpi / 72, dpi / 72),
    mupdf.ColorSpace.DeviceRGB,
    false,
    true,
  );
  const width = pixmap.getWidth();
  const height = pixmap.getHeight();
  const stride = pixmap.getStride();
  const source = pixmap.getPixels();
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const from = y * stride + x * 3;
      const to = (y * width + x) * 4;
      data[to] = source[from];
      data[to + 1] = source[from + 1];
      data[to + 2] = source[from + 2];
      data[to + 3] = 255;
    }
  }
  pixmap.destroy();
  page.destroy();
  return { data, width, height };
}

function facts(doc) {
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
  const walk = (items) => {
    for (const item of items ?? []) {
      outline += 1;
      walk(item.down);
    }
  };
  walk(doc.loadOutline());
  return { pages, links, chars, outline };
}

/** SSIM of the sampled pages (mean and worst) and the checks, output against input. */
async function judge(inputPath, outputPath) {
  const a = openPdf(await readFile(inputPath));
  const b = openPdf(await readFile(outputPath));
  try {
    const pages = Math.min(a.countPages(), b.countPages());
    const step = Math.max(1, Math.ceil(pages / maxPages));
    const scores = [];
    for (let index = 0; index < pages; index += step) {
      const x = render(a, index);
      const y = render(b, index);
      scores.push(x.width === y.width && x.height === y.height ? ssim(x, y, { downsample: false }).mssim : 0);
    }
    const fa = facts(a);
    const fb = facts(b);
    const problems = [];
    if (fb.pages !== fa.pages) problems.push(`pages ${fb.pages}/${fa.pages}`);
    if (fb.links < fa.links) problems.push(`links ${fb.links}/${fa.links}`);
    if (fb.outline < fa.outline) problems.push(`bookmarks ${fb.outline}/${fa.outline}`);
    if (fa.chars > 0 && fb.chars / fa.chars < 0.99) problems.push(`text ${(fb.chars / fa.chars).toFixed(3)}`);
    return {
      ssim: scores.reduce((sum, value) => sum + value, 0) / scores.length,
      ssimMin: Math.min(...scores),
      sampled: scores.length,
      problems,
    };
  } finally {
    a.destroy();
    b.destroy();
  }
}

function ghostscriptPreset(input, output, preset) {
  execFileSync(
    "gs",
    [
      "-dSAFER",
      "-dNOPAUSE",
      "-dBATCH",
      "-dQUIET",
      "-sDEVICE=pdfwrite",
      "-dCompatibilityLevel=1.7",
      `-dPDFSETTINGS=/${preset}`,
      `-sOutputFile=${output}`,
      input,
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
}

const work = await mkdtemp(join(tmpdir(), "octavo-compress-bench-"));
const rows = [];
const goals = [];
/** Seconds per file, by level or preset. */
const seconds = {};
try {
  for (const file of files) {
    const input = join(corpusDir, file);
    const inputBytes = (await stat(input)).size;
    const results = {};
    for (const level of ["low", "recommended", "extreme"]) {
      const workDir = await mkdtemp(join(work, "job-"));
      const stages = [];
      const onStage = values.stages && level === "recommended" ? (stage) => stages.push(stage) : undefined;
      const started = performance.now();
      const result = await compress(
        { path: input, name: basename(file) },
        { level, grayscale: false },
        { workDir, onStage },
      );
      const seconds = (performance.now() - started) / 1000;
      const output = result.outputs[0].path;
      results[level] = {
        bytes: (await stat(output)).size,
        seconds,
        stages,
        engine: result.engine,
        ...(await judge(input, output)),
      };
    }
    for (const preset of ["ebook", "screen"]) {
      const output = join(work, `${basename(file, ".pdf")}.${preset}.pdf`);
      const started = performance.now();
      ghostscriptPreset(input, output, preset);
      const seconds = (performance.now() - started) / 1000;
      results[`/${preset}`] = {
        bytes: (await stat(output)).size,
        seconds,
        engine: "gs",
        ...(await judge(input, output)),
      };
    }
    const cells = Object.values(results).map(
      (r) =>
        `${(r.bytes / inputBytes).toFixed(3)} (${r.ssim.toFixed(3)}/${r.ssimMin.toFixed(3)})${r.problems.length ? ` ✗ ${r.problems.join(", ")}` : ""}`,
    );
    rows.push(`| ${file} (${(inputBytes / 1024 ** 2).toFixed(2)} MB) | ${cells.join(" | ")} |`);
    for (const [name, r] of Object.entries(results)) {
      seconds[name] ??= [];
      seconds[name].push(r.seconds);
    }
    const times = Object.entries(results).map(([name, r]) => `${name} ${r.seconds.toFixed(2)} s`);
    console.error(
      `${file}: ${times.join(", ")}; engines: ${results.recommended.engine} / ${results.extreme.engine}`,
    );
    for (const stage of results.recommended.stages.sort((a, b) => a.startedMs - b.startedMs)) {
      console.error(
        `    ${String(stage.startedMs).padStart(5)} → ${String(stage.endedMs).padStart(5)} ms  ${stage.name}`,
      );
    }

    const ratio = (name) => results[name].bytes / inputBytes;
    const heavy = imageHeavy.includes(file);
    const checks = [];
    if (heavy) {
      checks.push([
        "recommended ≤ 0.40 at SSIM ≥ 0.95",
        ratio("recommended") <= 0.4 && results.recommended.ssim >= 0.95,
      ]);
      checks.push([
        "extreme ≤ 0.15 at SSIM ≥ 0.85",
        ratio("extreme") <= 0.15 && results.extreme.ssim >= 0.85,
      ]);
    }
    checks.push([
      "recommended < /ebook at ≥ its SSIM",
      ratio("recommended") < ratio("/ebook") && results.recommended.ssim >= results["/ebook"].ssim - 0.0005,
    ]);
    checks.push([
      "low, recommended, extreme keep pages/text/links/bookmarks",
      ["low", "recommended", "extreme"].every((l) => results[l].problems.length === 0),
    ]);
    for (const [goal, met] of checks) goals.push(`${met ? "met    " : "NOT met"}  ${file}: ${goal}`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

console.log(
  `Size as a share of the input (SSIM at ${dpi} dpi: mean/worst page, up to ${maxPages} pages sampled)\n`,
);
console.log("| File | low | recommended | extreme | gs /ebook | gs /screen |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);

// Time: median seconds per file, and each level's median against /ebook's (the goal: at most 1.5×), with
// the median of the per-file ratios beside it.
const ebook = seconds["/ebook"] ?? [];
console.log("");
console.log(
  "| Seconds per file | median | min | max | median ÷ /ebook median | median of per-file ÷ /ebook |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const [name, values] of Object.entries(seconds)) {
  const perFile = median(values.map((value, index) => value / ebook[index]));
  const ratio = median(values) / median(ebook);
  console.log(
    `| ${name} | ${median(values).toFixed(2)} | ${Math.min(...values).toFixed(2)} | ${Math.max(...values).toFixed(2)} | ${ratio.toFixed(2)}× | ${perFile.toFixed(2)}× |`,
  );
  if (["low", "recommended", "extreme"].includes(name)) {
    goals.push(
      `${ratio <= 1.5 ? "met    " : "NOT met"}  ${name}: median seconds ≤ 1.5× /ebook's (${ratio.toFixed(2)}×)`,
    );
  }
}
console.log("");
for (const line of goals) console.log(line);
