#!/usr/bin/env node
// OCR bake-off: tesseract.js 7 (the design card's package, Debian tessdata, no download) against OCRmyPDF 14
// (Debian, native Tesseract 5.3), with and without deskew, on the corpus scans that have ground truth, plus
// @octavo/ocr itself, the `ocrmypdf` command line as a user would type it (its defaults: PDF/A output,
// --optimize 1, one job per CPU) and the command line with the wrapper's own flags (wrapper overhead).
//
//   pnpm --filter @octavo/ocr build
//   node bench/ocr/bakeoff.mjs [--runs 3] [--only tjs,cli-raw,octavo,cli-same]
//
// Word recall = multiset overlap of lower-cased, punctuation-stripped words of `pdftotext <output PDF>` with
// the ground truth. Seconds are wall time per file (tesseract.js and @octavo/ocr in-process, the CLI as a
// child process), medians over the runs; configurations are interleaved so machine load hits all alike.
// tesseract.js is installed into $TMPDIR/octavo-ocr-bench-deps (outside the repository). The whole run is
// re-executed inside a network namespace without network (`unshare -n`) when possible, which proves that
// nothing is downloaded. Prints Markdown tables (docs/engines.md, "OCR", "Measured", comes from this script).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpusDir = join(repoRoot, "..", "shared", "corpus");
const depsDir = join(tmpdir(), "octavo-ocr-bench-deps");
const tessdata = "/usr/share/tesseract-ocr/5/tessdata";
const args = process.argv.slice(2);
const option = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const runs = Number(option("--runs", "3")) || 3;
const only = option("--only", "tjs,cli-raw,octavo,cli-same").split(",");

// ---------- set-up: scratch install, then re-run without network ----------

if (!existsSync(join(depsDir, "node_modules", "tesseract.js"))) {
  execFileSync(
    "npm",
    ["install", "--prefix", depsDir, "--no-save", "--no-audit", "--no-fund", "tesseract.js@7.0.0"],
    {
      stdio: "inherit",
    },
  );
}
if (!args.includes("--in-netns") && process.getuid?.() === 0) {
  const probe = spawnSync("unshare", ["-n", "true"]);
  if (probe.status === 0) {
    const child = spawnSync(
      "unshare",
      ["-n", process.execPath, fileURLToPath(import.meta.url), ...args, "--in-netns"],
      {
        stdio: "inherit",
      },
    );
    process.exit(child.status ?? 1);
  }
}
const offline = await fetch("https://cdn.jsdelivr.net/npm/", { signal: AbortSignal.timeout(3000) }).then(
  () => false,
  () => true,
);

const { createWorker } = createRequire(join(depsDir, "package.json"))("tesseract.js");
// One MuPDF instance for the engines and the bench's own checks (@octavo/mupdf: a second copy of MuPDF.js
// in the process would take over the first one's callbacks).
const { loadMupdf } = await import(
  pathToFileURL(join(repoRoot, "packages", "mupdf", "dist", "index.js")).href
);
const mupdf = await loadMupdf();
const { ocr } = await import(pathToFileURL(join(repoRoot, "packages", "ocr", "dist", "index.js")).href);

const workRoot = await mkdtemp(join(tmpdir(), "octavo-ocr-bakeoff-"));
const fresh = () => mkdtemp(join(workRoot, "w-"));

// ---------- the files ----------

const files = [
  { file: "scanned/ocrmypdf_linn.pdf", langs: ["eng"], truth: "scanned/ocrmypdf_linn.txt" },
  { file: "scanned/ocrmypdf_skew.pdf", langs: ["eng"], truth: "scanned/ocrmypdf_linn.txt" },
  { file: "scanned/extractous_deu-ocr.pdf", langs: ["deu"], truth: "scanned/extractous_deu-ocr.pdf.txt" },
  { file: "scanned/extractous_ara-ocr.pdf", langs: ["ara"], truth: "scanned/extractous_ara-ocr.pdf.txt" },
  {
    file: "scanned/tesseract_eurotext.pdf",
    langs: ["eng", "deu", "fra"],
    truth: "scanned/tesseract_eurotext.txt",
  },
  { file: "scanned/tesseract_phototest.pdf", langs: ["eng"], truth: "scanned/tesseract_phototest.gold.txt" },
  // Throughput only (no ground truth): three 206-dpi pages, where two page processes can run side by side.
  { file: "scanned/paperless_multi-page-images.pdf", langs: ["eng"], truth: undefined },
];

// ---------- judging ----------

function words(text) {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .split(/\s+/u)
    .filter((word) => word !== "");
}

function recall(truthText, outputText) {
  const counts = new Map();
  for (const word of words(outputText)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const truth = words(truthText);
  let hits = 0;
  for (const word of truth) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      hits += 1;
      counts.set(word, left - 1);
    }
  }
  return truth.length === 0 ? 0 : hits / truth.length;
}

async function pdfText(path) {
  const { stdout } = await execFileAsync("pdftotext", ["-enc", "UTF-8", path, "-"], { maxBuffer: 1 << 26 });
  return stdout;
}

async function pageCount(path) {
  const { stdout } = await execFileAsync("qpdf", ["--show-npages", path]);
  return Number(stdout.trim());
}

// ---------- the contenders ----------

/** tesseract.js: MuPDF.js renders 300-dpi grey pages, min(2, pages) workers recognise them into text-only
 * PDF pages (`pdfTextOnly`), qpdf joins them and lays them over the scan (the guide's searchable-PDF path). */
async function tesseractJs(input, langs, deskew, dir) {
  const doc = mupdf.Document.openDocument(await readFile(input), "application/pdf");
  const pages = doc.countPages();
  const workers = await Promise.all(
    Array.from({ length: Math.min(2, pages) }, () =>
      createWorker(langs, 1, { langPath: tessdata, gzip: false, cacheMethod: "none", cachePath: dir }),
    ),
  );
  try {
    for (const worker of workers) await worker.setParameters({ user_defined_dpi: "300" });
    const pngs = [];
    for (let index = 0; index < pages; index += 1) {
      const page = doc.loadPage(index);
      const pixmap = page.toPixmap(
        mupdf.Matrix.scale(300 / 72, 300 / 72),
        mupdf.ColorSpace.DeviceGray,
        false,
        true,
      );
      pngs.push(Buffer.from(pixmap.asPNG()));
      pixmap.destroy();
      page.destroy();
    }
    let next = 0;
    const pagePdfs = new Array(pages);
    await Promise.all(
      workers.map(async (worker) => {
        while (next < pages) {
          const index = next++;
          const result = await worker.recognize(
            pngs[index],
            { pdfTextOnly: true, rotateAuto: deskew },
            { pdf: true, text: false },
          );
          pagePdfs[index] = join(dir, `text-${String(index).padStart(5, "0")}.pdf`);
          await writeFile(pagePdfs[index], Buffer.from(result.data.pdf));
        }
      }),
    );
    const textPdf = join(dir, "text.pdf");
    await execFileAsync("qpdf", ["--empty", "--pages", ...pagePdfs, "--", textPdf]);
    const output = join(dir, "out.pdf");
    await execFileAsync("qpdf", [input, "--overlay", textPdf, "--", output]);
    return output;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
    doc.destroy();
  }
}

/** `ocrmypdf -q -l L [flags] in out`, run by Debian's python3 (its #! line). */
async function ocrmypdfCli(input, langs, extra, dir, env = process.env) {
  const output = join(dir, "out.pdf");
  await execFileAsync("/usr/bin/ocrmypdf", ["-q", "-l", langs.join("+"), ...extra, input, output], {
    maxBuffer: 1 << 26,
    cwd: dir,
    env,
  });
  return output;
}

async function octavo(input, langs, deskew, dir) {
  const result = await ocr(
    { path: input, name: "in.pdf" },
    { languages: langs, deskew, force: false },
    { workDir: dir, cpus: 2 },
  );
  return result.outputs[0].path;
}

// The flags @octavo/ocr passes (src/ocrmypdf.ts), minus its progress plugin, as one would type them.
const sameFlags = (deskew, dir) => [
  "--output-type",
  "pdf",
  "--optimize",
  "0",
  "--jobs",
  "2",
  "--skip-big",
  "150",
  "--skip-text",
  ...(deskew ? ["--deskew", "--rotate-pages"] : []),
  "--sidecar",
  join(dir, "text.txt"),
];

const contenders = [
  {
    id: "tjs",
    label: "tesseract.js 7, 2 workers",
    deskew: false,
    go: (f, l, d) => tesseractJs(f, l, false, d),
  },
  {
    id: "tjs",
    label: "tesseract.js 7, `rotateAuto`",
    deskew: true,
    go: (f, l, d) => tesseractJs(f, l, true, d),
  },
  // The command line as documented, nothing added: what "no slower than ocrmypdf" is measured against.
  { id: "cli-raw", label: "ocrmypdf (defaults)", deskew: false, go: (f, l, d) => ocrmypdfCli(f, l, [], d) },
  {
    id: "cli-raw",
    label: "ocrmypdf --deskew (defaults)",
    deskew: true,
    go: (f, l, d) => ocrmypdfCli(f, l, ["--deskew"], d),
  },
  { id: "octavo", label: "@octavo/ocr deskew:false", deskew: false, go: (f, l, d) => octavo(f, l, false, d) },
  { id: "octavo", label: "@octavo/ocr deskew:true", deskew: true, go: (f, l, d) => octavo(f, l, true, d) },
  {
    id: "cli-same",
    label: "ocrmypdf CLI, wrapper's flags, deskew off",
    deskew: false,
    go: (f, l, d) => ocrmypdfCli(f, l, sameFlags(false, d), d),
  },
  {
    id: "cli-same",
    label: "ocrmypdf CLI, wrapper's flags, deskew on",
    deskew: true,
    go: (f, l, d) => ocrmypdfCli(f, l, sameFlags(true, d), d),
  },
  // The wrapper also runs Tesseract single-threaded; the same for the command line isolates its overhead.
  {
    id: "cli-same",
    label: "ocrmypdf CLI, wrapper's flags + OMP_THREAD_LIMIT=1, deskew off",
    deskew: false,
    go: (f, l, d) => ocrmypdfCli(f, l, sameFlags(false, d), d, { ...process.env, OMP_THREAD_LIMIT: "1" }),
  },
  {
    id: "cli-same",
    label: "ocrmypdf CLI, wrapper's flags + OMP_THREAD_LIMIT=1, deskew on",
    deskew: true,
    go: (f, l, d) => ocrmypdfCli(f, l, sameFlags(true, d), d, { ...process.env, OMP_THREAD_LIMIT: "1" }),
  },
].filter((contender) => only.includes(contender.id));

// ---------- the run ----------

const loadBefore = loadavg()[0];
const samples = new Map(); // `${contender}|${file}` → { seconds: [], recall: [] }
const pagesOf = new Map();
for (const entry of files) pagesOf.set(entry.file, await pageCount(join(corpusDir, entry.file)));

for (let round = 0; round < runs; round += 1) {
  for (const entry of files) {
    const input = join(corpusDir, entry.file);
    const truth =
      entry.truth === undefined ? undefined : await readFile(join(corpusDir, entry.truth), "utf8");
    for (let k = 0; k < contenders.length; k += 1) {
      const contender = contenders[(k + round) % contenders.length];
      const dir = await fresh();
      const started = performance.now();
      let output;
      let error;
      try {
        output = await contender.go(input, entry.langs, dir);
      } catch (caught) {
        error = caught;
      }
      const seconds = (performance.now() - started) / 1000;
      const key = `${contender.label}|${entry.file}`;
      const sample = samples.get(key) ?? { seconds: [], recall: [], errors: [] };
      if (error !== undefined) sample.errors.push(String(error.message ?? error).split("\n")[0]);
      else {
        sample.seconds.push(seconds);
        if (truth !== undefined) sample.recall.push(recall(truth, await pdfText(output)));
      }
      samples.set(key, sample);
      await rm(dir, { recursive: true, force: true });
      process.stderr.write(`round ${round + 1} ${entry.file} ${contender.label}: ${seconds.toFixed(2)} s\n`);
    }
  }
}
const loadAfter = loadavg()[0];

// Nothing may have been cached or downloaded: no traineddata outside Debian's tessdata.
const stray = [];
for (const dir of [process.cwd(), depsDir, workRoot]) {
  for (const name of await readdir(dir, { recursive: true }).catch(() => [])) {
    if (String(name).endsWith(".traineddata")) stray.push(join(dir, String(name)));
  }
}

// ---------- report ----------

const median = (values) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const short = (file) => file.replace(/^scanned\//, "").replace(/\.pdf$/, "");

const toolVersion = (program, flag) => {
  try {
    return execFileSync(program, [flag], { stdio: ["ignore", "pipe", "pipe"] })
      .toString()
      .split("\n")[0]
      .trim();
  } catch {
    return "?";
  }
};
console.log(
  `Machine: ${cpus().length} CPUs, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}; Node ${process.version}; ` +
    `ocrmypdf ${toolVersion("/usr/bin/ocrmypdf", "--version")}, ${toolVersion("tesseract", "--version")}; ` +
    `tesseract.js 7.0.0; network during the run: ${offline ? "none (offline)" : "REACHABLE"}; ` +
    `stray traineddata: ${stray.length === 0 ? "none" : stray.join(", ")}; runs: ${runs}.\n`,
);

console.log(
  `| Engine | ${files.map((entry) => `${short(entry.file)} (${entry.langs.join("+")})`).join(" | ")} |`,
);
console.log(`|---|${files.map(() => "---").join("|")}|`);
for (const contender of contenders) {
  const cells = files.map((entry) => {
    const sample = samples.get(`${contender.label}|${entry.file}`);
    if (sample === undefined || sample.seconds.length === 0) return `error: ${sample?.errors[0] ?? "?"}`;
    const r = median(sample.recall);
    return `${Number.isFinite(r) ? `${fmt(r, 3)}, ` : ""}${fmt(median(sample.seconds), 2)} s`;
  });
  console.log(`| ${contender.label} | ${cells.join(" | ")} |`);
}

console.log(
  "\nSummary (recall: mean over the four clean Latin-script scans linn, deu, eurotext, phototest; s/page: all files):\n",
);
console.log("| Engine | deskew | recall clean Latin | recall skew | recall ara | s/page |");
console.log("|---|---|---|---|---|---|");
const clean = [
  "scanned/ocrmypdf_linn.pdf",
  "scanned/extractous_deu-ocr.pdf",
  "scanned/tesseract_eurotext.pdf",
  "scanned/tesseract_phototest.pdf",
];
for (const contender of contenders) {
  const get = (file) => samples.get(`${contender.label}|${file}`);
  const recallOf = (file) => median(get(file)?.recall ?? []);
  const cleanRecall = clean.map(recallOf).reduce((sum, value) => sum + value, 0) / clean.length;
  let seconds = 0;
  let pages = 0;
  for (const entry of files) {
    const s = median(get(entry.file)?.seconds ?? []);
    if (Number.isFinite(s)) {
      seconds += s;
      pages += pagesOf.get(entry.file);
    }
  }
  console.log(
    `| ${contender.label} | ${contender.deskew ? "yes" : "no"} | ${fmt(cleanRecall, 3)} | ${fmt(recallOf("scanned/ocrmypdf_skew.pdf"), 3)} | ${fmt(recallOf("scanned/extractous_ara-ocr.pdf"), 3)} | ${fmt(seconds / pages, 2)} |`,
  );
}

const pairs = [
  ["@octavo/ocr deskew:false", "ocrmypdf (defaults)"],
  ["@octavo/ocr deskew:true", "ocrmypdf --deskew (defaults)"],
  ["@octavo/ocr deskew:false", "ocrmypdf CLI, wrapper's flags, deskew off"],
  ["@octavo/ocr deskew:true", "ocrmypdf CLI, wrapper's flags, deskew on"],
  ["@octavo/ocr deskew:false", "ocrmypdf CLI, wrapper's flags + OMP_THREAD_LIMIT=1, deskew off"],
  ["@octavo/ocr deskew:true", "ocrmypdf CLI, wrapper's flags + OMP_THREAD_LIMIT=1, deskew on"],
];
if (only.includes("octavo") && (only.includes("cli-same") || only.includes("cli-raw"))) {
  console.log("\nWrapper vs command line (same files, same run; total of per-file medians):\n");
  console.log("| @octavo/ocr | ocrmypdf command line | @octavo/ocr s | CLI s | ratio |");
  console.log("|---|---|---|---|---|");
  for (const [ours, theirs] of pairs) {
    const total = (label) =>
      files.reduce((sum, entry) => sum + median(samples.get(`${label}|${entry.file}`)?.seconds ?? []), 0);
    const a = total(ours);
    const b = total(theirs);
    if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
    console.log(
      `| ${ours.replace("@octavo/ocr ", "")} | ${theirs.replace("ocrmypdf CLI, ", "")} | ${fmt(a, 2)} | ${fmt(b, 2)} | ${fmt(a / b, 2)} |`,
    );
  }
}

await mkdir(workRoot, { recursive: true });
await rm(workRoot, { recursive: true, force: true });
