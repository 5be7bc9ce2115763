#!/usr/bin/env node
// Layout analysis seconds per page, this tree against an earlier commit, in one run on the same files: the
// born-digital PDFs of corpus/general and corpus/tables (bench/pdf-office/corpus.mjs, the set compare.mjs
// converts). The earlier commit's packages/layout/src is compiled into packages/layout/.bench-baseline (so it
// resolves @octavo/mupdf as the package does); each page is analysed by both builds in turn, `--rounds` times,
// and the median time per page is kept. Prints per-file seconds per page and tables found by each build, then
// the medians and the pooled seconds per page of both and their ratio, and the files whose table count changed
// (where a change in the detector turned text into tables, or tables into text). Run nothing else meanwhile
// (2 shared cores).
//
//   pnpm exec turbo run build --filter @octavo/layout
//   node bench/layout/speed.mjs --baseline <commit> [--rounds 3] [--files a.pdf,tables/b.pdf] [--limit N]
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { selectCorpus } from "../pdf-office/corpus.mjs";
import { median } from "../support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const layoutDir = join(root, "packages", "layout");
const { values } = parseArgs({
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "3" },
    files: { type: "string" },
    limit: { type: "string" },
  },
});
if (!values.baseline) throw new Error("--baseline <commit> is required");

/** Compiles the baseline commit's layout sources next to the package and returns its entry module. */
function buildBaseline(commit) {
  const dir = join(layoutDir, ".bench-baseline");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  const listing = execFileSync(
    "git",
    ["-C", root, "ls-tree", "--name-only", commit, "packages/layout/src/"],
    {
      encoding: "utf8",
    },
  );
  for (const path of listing.split("\n").filter((p) => p.endsWith(".ts"))) {
    const text = execFileSync("git", ["-C", root, "show", `${commit}:${path}`], { encoding: "utf8" });
    writeFileSync(join(dir, "src", path.split("/").at(-1)), text);
  }
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: "../../../tsconfig.base.json",
      compilerOptions: { rootDir: "src", outDir: "dist" },
      include: ["src"],
    }),
  );
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], {
    stdio: "inherit",
  });
  return join(dir, "dist", "index.js");
}

const baselineEntry = buildBaseline(values.baseline);
const current = await import(pathToFileURL(join(layoutDir, "dist", "index.js")).href);
const baseline = await import(pathToFileURL(baselineEntry).href);
const { loadMupdf } = await import(pathToFileURL(join(root, "packages", "mupdf", "dist", "index.js")).href);
const mupdf = await loadMupdf();

const rounds = Number(values.rounds);
const { files } = selectCorpus({
  files: values.files?.split(","),
  limit: values.limit ? Number(values.limit) : undefined,
});

const rows = [];
for (const file of files) {
  const doc = mupdf.Document.openDocument(readFileSync(file.path), "application/pdf");
  const pages = doc.countPages();
  const seconds = { current: 0, baseline: 0 };
  const tables = { current: 0, baseline: 0 };
  for (let page = 0; page < pages; page++) {
    const times = { current: [], baseline: [] };
    for (let round = 0; round < rounds; round++) {
      // Alternate which build goes first, so neither always meets a warm cache.
      const order = round % 2 ? ["baseline", "current"] : ["current", "baseline"];
      for (const which of order) {
        const build = which === "current" ? current : baseline;
        const start = process.hrtime.bigint();
        const layout = build.analyzeDocument(doc, { pages: [page], images: false });
        times[which].push(Number(process.hrtime.bigint() - start) / 1e9);
        if (round === 0) tables[which] += build.tablesOf(layout).length;
      }
    }
    seconds.current += median(times.current);
    seconds.baseline += median(times.baseline);
  }
  doc.destroy();
  rows.push({ name: file.name, pages, ...seconds, tables });
  process.stderr.write(`${file.name}: ${pages} pages\n`);
}

const perPage = (row, which) => row[which] / Math.max(1, row.pages);
const fmt = (x) => x.toFixed(4);
console.log("| file | pages | this tree s/page | baseline s/page | ratio | tables (this tree / baseline) |");
console.log("|---|---|---|---|---|---|");
for (const row of rows)
  console.log(
    `| ${row.name} | ${row.pages} | ${fmt(perPage(row, "current"))} | ${fmt(perPage(row, "baseline"))} | ${(row.current / Math.max(1e-9, row.baseline)).toFixed(2)} | ${row.tables.current} / ${row.tables.baseline} |`,
  );
const totalPages = rows.reduce((s, r) => s + r.pages, 0);
const pooled = (which) => rows.reduce((s, r) => s + r[which], 0) / Math.max(1, totalPages);
const medianPerPage = (which) => median(rows.map((r) => perPage(r, which)));
console.log(
  `\n${rows.length} files, ${totalPages} pages, ${rounds} rounds, baseline ${values.baseline}\n` +
    `median s/page: this tree ${fmt(medianPerPage("current"))}, baseline ${fmt(medianPerPage("baseline"))}, ratio ${(medianPerPage("current") / medianPerPage("baseline")).toFixed(2)}\n` +
    `pooled s/page: this tree ${fmt(pooled("current"))}, baseline ${fmt(pooled("baseline"))}, ratio ${(pooled("current") / pooled("baseline")).toFixed(2)}`,
);
const changed = rows.filter((row) => row.tables.current !== row.tables.baseline);
console.log(
  `tables found: this tree ${rows.reduce((s, r) => s + r.tables.current, 0)}, baseline ${rows.reduce((s, r) => s + r.tables.baseline, 0)}; ` +
    `changed in ${changed.length} files: ${changed.map((r) => `${r.name} ${r.tables.baseline} -> ${r.tables.current}`).join(", ") || "none"}`,
);
