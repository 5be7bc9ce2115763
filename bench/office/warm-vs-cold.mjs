#!/usr/bin/env node
// Office → PDF: warm conversions through @octavo/office's OfficeConverter (a LibreOffice kept running,
// driven by the persistent python3-uno helper) against a cold `soffice --headless --convert-to pdf` per
// file (profile reused, as a per-job CLI would), in one run on the same corpus files. Build first:
//
//   pnpm --filter @octavo/office build && node bench/office/warm-vs-cold.mjs [--runs 7]
//
// Goal: warm docx median ≤ 0.3 s and ≥ 4× faster than cold.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { OfficeConverter } from "../../packages/office/dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpus = join(root, "..", "shared", "corpus", "office");
const { values } = parseArgs({
  options: { runs: { type: "string", default: "7" } },
});
const runs = Number(values.runs);
const files = ["tika_testWORD_various.docx", "docling_xlsx_01.xlsx", "poi_with_japanese.pptx"].map((name) =>
  join(corpus, name),
);
const soffice = "/usr/lib/libreoffice/program/soffice";

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const seconds = (ms) => `${(ms / 1000).toFixed(3)} s`;

const work = mkdtempSync(join(tmpdir(), "octavo-office-bench-"));
let outputs = 0;
const outDir = () => {
  outputs += 1;
  const dir = join(work, `out-${outputs}`);
  mkdirSync(dir);
  return dir;
};

// Warm: one instance, started by a first conversion that is not timed.
const converter = new OfficeConverter({
  instances: 1,
  maxConversionsPerInstance: 1000,
  conversionTimeoutMs: 120_000,
  workDir: join(work, "warm"),
});
const startedAt = performance.now();
await converter.convert({ path: files[0], name: basename(files[0]) }, outDir());
const firstMs = performance.now() - startedAt;
const warm = new Map(files.map((file) => [file, []]));
for (let run = 0; run < runs; run += 1) {
  for (const file of files) {
    const t = performance.now();
    await converter.convert({ path: file, name: basename(file) }, outDir());
    warm.get(file).push(performance.now() - t);
  }
}
await converter.close();

// Cold: a new soffice per file; the profile is made by an untimed first run and reused after.
const profile = pathToFileURL(join(work, "cold-profile")).href;
const cold1 = (file) => {
  const t = performance.now();
  execFileSync(
    soffice,
    [`-env:UserInstallation=${profile}`, "--headless", "--convert-to", "pdf", "--outdir", outDir(), file],
    {
      stdio: "ignore",
    },
  );
  return performance.now() - t;
};
cold1(files[0]);
const cold = new Map(files.map((file) => [file, []]));
for (let run = 0; run < runs; run += 1) for (const file of files) cold.get(file).push(cold1(file));

rmSync(work, { recursive: true, force: true });

console.log(
  `runs per file: ${runs}; first warm conversion (LibreOffice start included): ${seconds(firstMs)}`,
);
console.log(
  ["file".padEnd(30), "warm median".padStart(12), "cold median".padStart(12), "cold/warm".padStart(10)].join(
    " ",
  ),
);
for (const file of files) {
  const w = median(warm.get(file));
  const c = median(cold.get(file));
  console.log(
    [
      basename(file).padEnd(30),
      seconds(w).padStart(12),
      seconds(c).padStart(12),
      `${(c / w).toFixed(1)}×`.padStart(10),
    ].join(" "),
  );
}
const docx = files[0];
const docxWarm = median(warm.get(docx));
const docxRatio = median(cold.get(docx)) / docxWarm;
const pass = docxWarm <= 300 && docxRatio >= 4;
console.log(`goal (docx warm ≤ 0.3 s and ≥ 4× faster than cold): ${pass ? "met" : "NOT met"}`);
