#!/usr/bin/env node
// Baseline for PDF → Word / PowerPoint: LibreOffice's own PDF import (writer_pdf_import → DOCX,
// impress_pdf_import → PPTX) on every born-digital PDF of corpus/general and corpus/tables, one cold soffice
// per file with a fresh private profile and a per-file timeout. Per file and format: seconds, seconds per
// page, word recall against `pdftotext -layout` of the source (metrics.mjs), the share of DOCX paragraphs that
// flow (not in text boxes/frames), and for PPTX slides = pages, the share of slide text in text boxes and
// pictures per slide. Prints a markdown table, a summary per format and the skipped files (corpus.mjs says
// why files are skipped). LibreOffice has no PDF import into Calc, so there is no XLSX baseline.
//
//   node bench/pdf-office/libreoffice-baseline.mjs [--files a.pdf,tables/b.pdf] [--limit N]
//        [--kinds docx,pptx] [--timeout 120] [--json results.json] [--keep out-dir] > /tmp/lo-baseline.md
//   node bench/pdf-office/libreoffice-baseline.mjs --remeasure results.json > /tmp/lo-baseline.md
//
// --remeasure re-judges the outputs of an earlier run (written with --json and --keep) without converting
// again, keeping its timings: for when metrics.mjs changed.
//
// Progress goes to stderr. Timings include starting soffice (about a second), as a command-line user pays
// it; one untimed conversion first sets up the profile. Run nothing else meanwhile (2 shared cores).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { corpusDir, selectCorpus } from "./corpus.mjs";
import { libreOfficeVersion, runLibreOffice, warmUpLibreOffice } from "./libreoffice.mjs";
import { pdftotextOf, wordSet } from "./metrics.mjs";
import {
  markdownSummary,
  markdownTable,
  measureOutput,
  printSkipped,
  summarise,
  writeResults,
} from "./report.mjs";

const { values } = parseArgs({
  options: {
    files: { type: "string" },
    limit: { type: "string" },
    kinds: { type: "string", default: "docx,pptx" },
    timeout: { type: "string", default: "120" },
    json: { type: "string" },
    keep: { type: "string" },
    remeasure: { type: "string" },
  },
});

let version;
let timeoutMs;
let engines;
let skipped;
let rows;
if (values.remeasure) {
  const previous = JSON.parse(readFileSync(values.remeasure, "utf8"));
  ({ version, timeoutMs, skipped } = previous);
  engines =
    previous.engines ??
    Object.keys(previous.rows[0]?.results ?? {}).map((label) => [label, label.split(" ")[1]]);
  rows = previous.rows.map((row) => {
    const file = { ...row.file, sourceText: pdftotextOf(row.file.path) };
    const results = {};
    for (const [label, kind] of engines) {
      const run = row.results[label];
      const measured = run.ok ? measureOutput(kind, run.output, file) : {};
      results[label] = { ok: run.ok, supported: run.supported, output: run.output, seconds: run.seconds };
      Object.assign(results[label], { error: run.error, timedOut: run.timedOut }, measured);
    }
    return { file, results };
  });
} else {
  timeoutMs = Number(values.timeout) * 1000;
  let files;
  ({ files, skipped } = selectCorpus({
    files: values.files?.split(","),
    limit: values.limit ? Number(values.limit) : undefined,
  }));
  for (const file of files) file.words = wordSet(file.sourceText).size;

  const outRoot = values.keep ?? mkdtempSync(join(tmpdir(), "octavo-lo-baseline-"));
  version = await libreOfficeVersion();
  console.error(`${version}; ${files.length} files, ${skipped.length} skipped; outputs in ${outRoot}`);
  await warmUpLibreOffice(join(corpusDir, "general", "samplefiles_crazyones-pdfa.pdf"), { timeoutMs });

  engines = values.kinds.split(",").map((kind) => [`LO ${kind}`, kind]);
  rows = [];
  try {
    for (const file of files) {
      const row = { file, results: {} };
      for (const [label, kind] of engines) {
        const run = await runLibreOffice(file.path, kind, join(outRoot, kind), { timeoutMs });
        const measured = run.ok ? measureOutput(kind, run.output, file) : {};
        row.results[label] = { ...run, ...measured };
        const r = row.results[label];
        console.error(
          `${file.name} (${file.pages} p) ${kind}: ${r.seconds?.toFixed(1)} s, ` +
            (r.error ? r.error : `recall ${(r.recall * 100).toFixed(1)} %`),
        );
      }
      rows.push(row);
    }
  } finally {
    if (!values.keep) rmSync(outRoot, { recursive: true, force: true });
  }
}

const summaries = Object.fromEntries(
  engines.map(([label, kind]) => [
    label,
    summarise(
      kind,
      rows.map((row) => ({ file: row.file, result: row.results[label] })),
    ),
  ]),
);

console.log(`# LibreOffice PDF import baseline\n`);
console.log(
  `${version}, \`soffice --headless --infilter=writer_pdf_import --convert-to docx\` and ` +
    `\`--infilter=impress_pdf_import --convert-to pptx\`, one process per file, timeout ${timeoutMs / 1000} s. ` +
    `Recall: word sets against \`pdftotext -layout\` of the source (bench/pdf-office/metrics.mjs). ` +
    `${new Date().toISOString()}\n`,
);
console.log(markdownTable(engines, rows));
console.log("");
for (const [label, kind] of engines) console.log(`${markdownSummary(label, kind, summaries[label])}\n`);
console.log(
  "XLSX: no baseline — LibreOffice has no PDF import into Calc (only writer_, impress_ and draw_pdf_import; " +
    "`--infilter=calc_pdf_import --convert-to xlsx` fails with “no export filter”).\n",
);
printSkipped(skipped);

if (values.json) writeResults(values.json, { version, timeoutMs, skipped, summaries }, rows);
