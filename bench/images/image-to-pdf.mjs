#!/usr/bin/env node
// Image to PDF: @octavo/images's imageToPdf against Debian's img2pdf (apt-get install img2pdf) on the same
// JPEG and PNG files of the package's fixture set: each file alone, then all of them in one PDF. Runs
// alternate (ours, img2pdf, ours, ...) so both see the same machine load.
//
//   pnpm --filter @octavo/images build && node bench/images/image-to-pdf.mjs [--runs 5] [--files a.jpg,b.png]
//
// Timing: ours is imageToPdf in this process after one warm-up job (as in a warm worker); img2pdf is
// img2pdf.convert() inside Python, timed after the module is imported, so neither pays for starting an
// interpreter (img2pdf's command line, which does, is shown beside it). Printed per case: median seconds
// per page of each, the ratio ours ÷ img2pdf, and the output sizes.
//
// Goal: ours no slower than 1.5× img2pdf (median seconds per page), on the single files and on all of them.
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "../support.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const packageDir = join(repoRoot, "packages", "images");
const fixturesDir = join(packageDir, "test", "fixtures", "images");
const { imageToPdf } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    files: { type: "string" },
  },
});
const runs = Number(values.runs);
// Debian's python3 holds the img2pdf module; a pyenv python first on PATH would not.
const python = "/usr/bin/python3";
const fit = { pageSize: "fit", orientation: "auto", margin: "none" };

// The fixture set's good JPEG and PNG files (not the mislabeled or cut-short ones).
const usable = (name) => /\.(jpe?g|png)$/i.test(name) && !/^(truncated|png-named|pdf-named)/.test(name);
const files = values.files ? values.files.split(",") : (await readdir(fixturesDir)).filter(usable).sort();

const timeImg2pdf = `
import sys, time, img2pdf
out, files = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
data = img2pdf.convert(files)
with open(out, "wb") as f:
    f.write(data)
print(time.perf_counter() - started)
`;

function pagesOf(pdf) {
  return Number(execFileSync("qpdf", ["--show-npages", pdf], { encoding: "utf8" }).trim());
}

const work = await mkdtemp(join(tmpdir(), "octavo-image-to-pdf-bench-"));
try {
  // One warm-up job: loads sharp, MuPDF and pdf-lib as a worker that has run a job before would have.
  await imageToPdf([{ path: join(fixturesDir, files[0]), name: files[0] }], fit, { workDir: work });

  // Files img2pdf refuses (it takes no 16-bit image with alpha) are timed for ours alone and left out of
  // the comparisons and of the all-together case.
  const refused = new Set();
  for (const file of files) {
    try {
      execFileSync(python, ["-c", timeImg2pdf, join(work, "probe.pdf"), join(fixturesDir, file)], {
        stdio: "ignore",
      });
    } catch {
      refused.add(file);
    }
  }
  const accepted = files.filter((file) => !refused.has(file));
  const cases = [
    ...files.map((file) => ({ label: file, files: [file] })),
    { label: `all ${accepted.length} together`, files: accepted },
  ];
  const rows = [];
  for (const entry of cases) {
    const paths = entry.files.map((file) => join(fixturesDir, file));
    const compared = !entry.files.some((file) => refused.has(file));
    const ours = [];
    const theirs = [];
    const theirsCli = [];
    let oursBytes = 0;
    let theirsBytes = Number.NaN;
    let pages = 0;
    for (let run = 0; run < runs; run += 1) {
      const workDir = await mkdtemp(join(work, "job-"));
      const started = performance.now();
      const result = await imageToPdf(
        entry.files.map((file, index) => ({ path: paths[index], name: file })),
        fit,
        { workDir },
      );
      ours.push((performance.now() - started) / 1000);
      const output = result.outputs[0].path;
      oursBytes = (await stat(output)).size;
      pages = pagesOf(output);

      if (compared) {
        const theirOutput = join(workDir, "img2pdf.pdf");
        theirs.push(
          Number(execFileSync(python, ["-c", timeImg2pdf, theirOutput, ...paths], { encoding: "utf8" })),
        );
        theirsBytes = (await stat(theirOutput)).size;
        const cliStarted = performance.now();
        execFileSync("img2pdf", [...paths, "-o", join(workDir, "cli.pdf")], { stdio: "ignore" });
        theirsCli.push((performance.now() - cliStarted) / 1000);
      }
      await rm(workDir, { recursive: true, force: true });
    }
    const perPage = (values) => (values.length === 0 ? Number.NaN : median(values) / pages);
    rows.push({
      label: entry.label,
      compared,
      pages,
      ours: perPage(ours),
      theirs: perPage(theirs),
      cli: perPage(theirsCli),
      oursBytes,
      theirsBytes,
    });
    console.error(
      `${entry.label}: ours ${median(ours).toFixed(4)} s${compared ? `, img2pdf ${median(theirs).toFixed(4)} s` : " (img2pdf refuses it)"}`,
    );
  }

  console.log(`Image to PDF, fit pages, median of ${runs} alternating runs; seconds per page\n`);
  console.log(
    "| Input | pages | ours s/page | img2pdf s/page | ours ÷ img2pdf | img2pdf CLI s/page | ours bytes | img2pdf bytes | bytes ratio |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  const cell = (value, digits) => (Number.isNaN(value) ? "refused" : value.toFixed(digits));
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.pages} | ${row.ours.toFixed(4)} | ${cell(row.theirs, 4)} | ${row.compared ? `${(row.ours / row.theirs).toFixed(2)}×` : "–"} | ${cell(row.cli, 4)} | ${row.oursBytes} | ${Number.isNaN(row.theirsBytes) ? "–" : row.theirsBytes} | ${row.compared ? (row.oursBytes / row.theirsBytes).toFixed(3) : "–"} |`,
    );
  }
  const single = rows.slice(0, -1).filter((row) => row.compared);
  const all = rows.at(-1);
  const medianRatio = median(single.map((row) => row.ours / row.theirs));
  console.log("");
  console.log(
    `${medianRatio <= 1.5 ? "met    " : "NOT met"}  single files: median of ours ÷ img2pdf ≤ 1.5 (${medianRatio.toFixed(2)}×, ${single.length} files)`,
  );
  console.log(
    `${all.ours / all.theirs <= 1.5 ? "met    " : "NOT met"}  all together: ours ÷ img2pdf ≤ 1.5 (${(all.ours / all.theirs).toFixed(2)}×)`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
