#!/usr/bin/env node
// What the edit frame's output check (packages/edit/src/save-checked.ts) rests on, measured on every PDF
// of the corpus MuPDF opens without a password: MuPDF's rewrite of it (garbage=compact,compress, what the
// frame writes), then `qpdf --check` of the input and of the output, and `qpdf --show-npages` of the
// output (the structural read that stands for the output's full check when the input's check is clean).
//
// Reported:
//   - each pair of exit codes (input --check, output --check) and how many files gave it: 0 is clean,
//     3 warnings, 2 errors;
//   - the counterexamples to the frame's rule: an input that passes --check clean whose output does not
//     (the rule holds while there are none);
//   - the time of the output's --check and of its --show-npages: medians, and totals over the corpus
//     (the check's cost grows with the file: its largest share is in the large files).
//
//   node bench/output-check.mjs
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMupdf } from "../packages/mupdf/dist/index.js";
import { median } from "./support.mjs";

const corpus = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "corpus");
const work = mkdtempSync(join(tmpdir(), "octavo-bench-output-check-"));
const round = (value) => Math.round(value * 10) / 10;
const mupdf = await loadMupdf();

/** The exit code of qpdf with `args`, and how long it took. */
function qpdf(args) {
  const started = performance.now();
  const { status } = spawnSync("qpdf", args, { stdio: "ignore" });
  return { status, ms: performance.now() - started };
}

/** MuPDF's rewrite of `file` into `output`; false when MuPDF cannot open it or it wants a password. */
function rewrite(file, output) {
  try {
    const doc = mupdf.PDFDocument.openDocument(readFileSync(file), "application/pdf");
    try {
      if (doc.needsPassword()) return false;
      doc.countPages();
      writeFileSync(output, doc.saveToBuffer("garbage=compact,compress").asUint8Array());
      return true;
    } finally {
      doc.destroy();
    }
  } catch {
    return false;
  }
}

try {
  const files = execFileSync("find", [corpus, "-name", "*.pdf"], { encoding: "utf8" })
    .trim()
    .split("\n")
    .sort();
  const pairs = new Map();
  const counterexamples = [];
  const times = { check: [], npages: [] };
  let opened = 0;
  for (const file of files) {
    const output = join(work, "output.pdf");
    if (!rewrite(file, output)) continue;
    opened += 1;
    const input = qpdf(["--check", file]).status;
    const check = qpdf(["--check", output]);
    const npages = qpdf(["--show-npages", output]);
    times.check.push(check.ms);
    times.npages.push(npages.ms);
    const pair = `input ${input}, output ${check.status}`;
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
    if (input === 0 && check.status !== 0)
      counterexamples.push(`${relative(corpus, file)}: output ${check.status}`);
  }
  console.log(`corpus PDFs: ${files.length}; opened by MuPDF without a password: ${opened}`);
  console.log("qpdf --check exit codes (input, MuPDF's rewrite) → files:");
  for (const [pair, count] of [...pairs].sort()) console.log(`  ${pair} → ${count}`);
  console.log(`clean inputs whose output is not clean: ${counterexamples.length}`);
  for (const line of counterexamples) console.log(`  ${line}`);
  const total = (values) => values.reduce((sum, value) => sum + value, 0);
  for (const [label, summary] of [
    ["median", median],
    ["total", total],
  ]) {
    const [check, npages] = [summary(times.check), summary(times.npages)];
    console.log(
      `output check, ${label}: qpdf --check ${round(check)} ms, qpdf --show-npages ${round(npages)} ms (${round(check / npages)}×)`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
