#!/usr/bin/env node
// PDF to Markdown on scans: does its text match what our OCR alone gives? Every corpus scan with a text
// ground truth (MANIFEST.tsv rows under scanned/ whose notes name `ground_truth=….txt`) is read two ways:
//   (a) OCR alone: @octavo/ocr's `ocr` (OCRmyPDF; the languages the MANIFEST names, deskew on, force off, the
//       spec's defaults), then plain `pdftotext` of its output PDF, as bench/ocr/bakeoff.mjs judges OCR;
//   (b) PDF to Markdown (packages/pdf-office/dist/markdown/pdf-to-markdown.js) with ocr "auto" and the same
//       languages, format markdown, images none; its Markdown stripped to plain text by structure-score.mjs.
// Each is scored with @octavo/testing's wordRecall against the ground truth: the share of the truth's distinct
// words (NFKC, lower case, split on white space and hyphens, edge punctuation trimmed) found in the output.
// Printed per file in points (recall × 100), with (b) − (a); then the means. Goal: (b) within 1 point of (a)
// on the mean. The MANIFEST's languages are Tesseract codes (eng, deu, fra…); a file naming more than the 3
// an OCR job takes (tesseract_eurotext: eng+deu+fra+ita+spa+por) uses the first 3, as bakeoff.mjs does.
// Files run one after the other, (a) then (b); run nothing else meanwhile (2 shared cores).
//
//   pnpm exec turbo run build   # @octavo/ocr, @octavo/pdf-office, @octavo/testing
//   node bench/markdown/scans.mjs [--files ocrmypdf_linn.pdf,…] [--deskew false] [--json FILE] > /tmp/scans.md
// --engine FILE: a stand-in module exporting pdfToMarkdown with the same signature (to test the bench itself).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { wordRecall } from "../../packages/testing/dist/index.js";
import { corpusDir, readManifest } from "../pdf-office/corpus.mjs";
import { pageCount } from "../pdf-office/metrics.mjs";
import { failureText, loadMarkdownEngine, runEngine } from "./engine.mjs";
import { markdownToText } from "./structure-score.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    files: { type: "string" },
    deskew: { type: "string", default: "true" },
    engine: { type: "string" },
    json: { type: "string" },
  },
});
// --engine: another module exporting pdfToMarkdown with the same signature (a stand-in, for testing this bench).
const pdfToMarkdown = await loadMarkdownEngine(values.engine);
const { ocr, ocrLanguages, maxLanguages } = await import(
  pathToFileURL(join(root, "packages", "ocr", "dist", "index.js")).href
);

/**
 * The OCR languages a MANIFEST note names, in order, at most maxLanguages: its words (or +-joined words, as
 * in "eng+deu+fra") that are one of the option's codes, which are Tesseract's own (eng, deu, chi_sim…).
 */
function languagesOf(notes) {
  const found = [];
  for (const token of notes.split(/[;,\s]+/)) {
    for (const code of token.split("+")) {
      if (ocrLanguages.includes(code) && !found.includes(code)) found.push(code);
    }
  }
  return found.slice(0, maxLanguages);
}

const requested = values.files?.split(",").map((f) => basename(f));
const files = readManifest()
  .filter((row) => dirname(row.name) === "scanned" && row.name.endsWith(".pdf"))
  .map((row) => {
    const truth = /ground_truth=([^;\s]+)/
      .exec(row.notes)?.[1]
      ?.split(",")
      .find((name) => name.endsWith(".txt"));
    return { name: row.name, truth, notes: row.notes, languages: languagesOf(row.notes) };
  })
  .filter((file) => file.truth && (!requested || requested.includes(basename(file.name))));

const deskew = values.deskew !== "false";
const work = mkdtempSync(join(tmpdir(), "octavo-bench-markdown-scans-"));
const rows = [];
try {
  for (const [index, file] of files.entries()) {
    const path = join(corpusDir, file.name);
    const truth = readFileSync(join(corpusDir, file.truth), "utf8");
    const languages = file.languages.length ? file.languages : ["eng"];
    const row = { name: file.name, truth: file.truth, languages, pages: pageCount(path) };
    const dir = join(work, String(index));

    mkdirSync(dir, { recursive: true });
    const started = performance.now();
    try {
      const result = await ocr(
        { path, name: basename(path) },
        { languages, deskew, force: false },
        { workDir: dir, cpus: 2 },
      );
      const text = execFileSync("pdftotext", ["-enc", "UTF-8", result.outputs[0].path, "-"], {
        encoding: "utf8",
        maxBuffer: 1 << 28,
      });
      row.ocr = { recall: wordRecall(truth, text).recall, seconds: (performance.now() - started) / 1000 };
    } catch (error) {
      row.ocr = { failed: failureText(error) };
    }

    const markdown = await runEngine(pdfToMarkdown, path, {
      format: "markdown",
      images: "none",
      ocr: "auto",
      languages,
    });
    if (markdown.error) row.markdown = { failed: markdown.error };
    else {
      const { recall, missing } = wordRecall(truth, markdownToText(markdown.text));
      row.markdown = {
        recall,
        seconds: markdown.seconds,
        missing: missing.slice(0, 12),
        warnings: markdown.warnings,
      };
    }
    rows.push(row);
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(
      `${file.name} (${languages.join("+")}): OCR ${row.ocr.failed ?? row.ocr.recall?.toFixed(3)}, Markdown ${row.markdown.failed ?? row.markdown.recall?.toFixed(3)}\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// ---------- report ----------

const points = (v) => (v === undefined ? "–" : (v * 100).toFixed(1));
const cell = (side) => (side.failed ? `failed: ${side.failed.slice(0, 80)}` : `${points(side.recall)}`);
console.log(
  `Word recall (points) against the ground truth: (a) @octavo/ocr + pdftotext, (b) PDF to Markdown, ocr auto. Deskew ${deskew ? "on" : "off"}.\n`,
);
console.log("| file | languages | pages | (a) OCR | (b) Markdown | (b) − (a) | (a) s | (b) s |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const both = r.ocr.recall !== undefined && r.markdown.recall !== undefined;
  console.log(
    `| ${r.name} | ${r.languages.join("+")} | ${r.pages} | ${cell(r.ocr)} | ${cell(r.markdown)} | ${both ? ((r.markdown.recall - r.ocr.recall) * 100).toFixed(1) : "–"} | ${r.ocr.seconds?.toFixed(1) ?? "–"} | ${r.markdown.seconds?.toFixed(1) ?? "–"} |`,
  );
}
const paired = rows.filter((r) => r.ocr.recall !== undefined && r.markdown.recall !== undefined);
const mean = (list) => list.reduce((s, v) => s + v, 0) / Math.max(1, list.length);
const overall = {
  files: rows.length,
  paired: paired.length,
  ocr: mean(paired.map((r) => r.ocr.recall)),
  markdown: mean(paired.map((r) => r.markdown.recall)),
};
overall.difference = overall.markdown - overall.ocr;
console.log(
  `\nMean over the ${paired.length} files both read: (a) ${points(overall.ocr)}, (b) ${points(overall.markdown)}, ` +
    `(b) − (a) ${(overall.difference * 100).toFixed(1)} points (goal: within 1 point)` +
    `${paired.length < rows.length ? `; ${rows.length - paired.length} files failed on one side` : ""}.`,
);
const withMissing = rows.filter((r) => r.markdown.missing?.length);
if (withMissing.length) {
  console.log("\nTruth words PDF to Markdown missed (first 12 per file):\n");
  for (const r of withMissing) console.log(`- ${r.name}: ${r.markdown.missing.join(" ")}`);
}
if (values.json) writeFileSync(values.json, `${JSON.stringify({ deskew, rows, overall }, null, 2)}\n`);
