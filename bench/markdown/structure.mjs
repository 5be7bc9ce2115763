#!/usr/bin/env node
// PDF to Markdown's structure against pandoc's reading of the same Word document. Every Word document of the
// corpus (../shared/corpus/office/*.docx, MANIFEST.tsv order; encrypted ones, whose MANIFEST notes say
// ENCRYPTED or password, are skipped) is converted to PDF by our own Word to PDF (@octavo/office's
// OfficeConverter, one warm LibreOffice) and that PDF to Markdown by our engine (packages/pdf-office/dist/
// markdown/pdf-to-markdown.js; format markdown, images placeholder, headersFooters drop, ocr never: these
// PDFs have a text layer). The truth is `pandoc -t gfm --wrap=none` of the .docx. Both Markdown texts are read
// by structure-score.mjs, which has the rules, and compared:
//   - edit distance: Levenshtein distance over the WORD sequences of the whole text (Markdown syntax,
//     images and pipes stripped; NFKC, lower case, split on white space and hyphens, edge punctuation
//     trimmed), divided by the longer sequence's length. Goal ≤ 0.05. Beside it, the same distance for plain
//     `pdftotext` (reading order, no -layout) of the same PDF: what a structure-blind extractor scores, so
//     the share of the distance the PDF itself causes (page furniture Word prints, text boxes) is visible.
//   - heading F1, list-item F1, table-cell F1: each a multiset of normalised texts (the words joined by one
//     space) on both sides, F1 = 2·matched / (truth + found); "–" when both sides have none. The overall
//     figures are pooled over the files (Σ matched against Σ counts), with the per-file mean beside them.
//     A heading's key leaves out a leading section number ("1.2 Scope" is "scope"): Word and LibreOffice
//     print heading numbers, pandoc does not write them. Heading levels are not part of the F1; "levels" is the share of matched headings whose level agrees.
// Pandoc drops what it cannot represent in GFM (the Title/Subtitle styles go to metadata; headers and
// footers never appear; images become <img>, dropped by the reader, as our ![image](…) placeholders are).
// pandoc 2.17 cannot read OOXML Strict (docling_Strict.docx): such a file is listed as skipped. The corpus has
// only a few Word documents; `--formats docx,odt` adds the OpenDocument texts (pandoc reads them too).
//
//   pnpm exec turbo run build   # @octavo/office, @octavo/pdf-office, @octavo/testing
//   node bench/markdown/structure.mjs [--files tika_testWORD_various.docx,…] [--formats docx,odt]
//        [--keep DIR] [--json FILE] > /tmp/markdown-structure.md
// --keep DIR leaves each file's PDF, pandoc Markdown and our Markdown in DIR for a look at the differences.
// --engine FILE: a stand-in module exporting pdfToMarkdown with the same signature (to test the bench itself).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { corpusDir, readManifest } from "../pdf-office/corpus.mjs";
import { pageCount } from "../pdf-office/metrics.mjs";
import { median } from "../support.mjs";
import { bornDigitalOptions, loadMarkdownEngine, runEngine } from "./engine.mjs";
import {
  headingLevelAgreement,
  multisetF1,
  pooledF1,
  readStructure,
  wordEditDistance,
  words,
} from "./structure-score.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    engine: { type: "string" },
    files: { type: "string" },
    formats: { type: "string", default: "docx" },
    keep: { type: "string" },
    json: { type: "string" },
  },
});

const formats = values.formats.split(",").map((f) => `.${f.replace(/^\./, "")}`);
const requested = values.files?.split(",").map((f) => basename(f));
const ENCRYPTED = /ENCRYPTED|password/i;
const candidates = readManifest().filter(
  (row) =>
    dirname(row.name) === "office" &&
    formats.includes(extname(row.name)) &&
    (!requested || requested.includes(basename(row.name))),
);
const files = candidates.filter((row) => !ENCRYPTED.test(row.notes));
const skipped = candidates
  .filter((row) => ENCRYPTED.test(row.notes))
  .map((row) => ({ name: row.name, reason: `encrypted: ${row.notes.split(";")[0]}` }));

// --engine: another module exporting pdfToMarkdown with the same signature (a stand-in, for testing this bench).
const pdfToMarkdown = await loadMarkdownEngine(values.engine);
try {
  execFileSync("pandoc", ["--version"], { stdio: "ignore" });
} catch {
  console.error("pandoc is not installed (apt-get install -y pandoc).");
  process.exit(2);
}
const pandocVersion = execFileSync("pandoc", ["--version"], { encoding: "utf8" }).split("\n")[0];

const { OfficeConverter } = await import(
  pathToFileURL(join(root, "packages", "office", "dist", "index.js")).href
);

const work = mkdtempSync(join(tmpdir(), "octavo-bench-markdown-structure-"));
if (values.keep) mkdirSync(values.keep, { recursive: true });
const converter = new OfficeConverter({
  instances: 1,
  maxConversionsPerInstance: 100,
  conversionTimeoutMs: 300_000,
  workDir: join(work, "office"),
});

const rows = [];
try {
  for (const [index, row] of files.entries()) {
    const path = join(corpusDir, row.name);
    const stem = basename(row.name, extname(row.name));
    const dir = join(work, String(index));
    mkdirSync(dir, { recursive: true });
    let truthMarkdown;
    try {
      truthMarkdown = execFileSync("pandoc", ["-t", "gfm", "--wrap=none", path], {
        encoding: "utf8",
        cwd: dir,
        maxBuffer: 1 << 28,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      const why = String(error.stderr || error.message)
        .trim()
        .split("\n")[0];
      skipped.push({ name: row.name, reason: `pandoc cannot read it: ${why}` });
      continue;
    }
    let pdf;
    try {
      pdf = (await converter.convert({ path, name: basename(path) }, dir)).path;
    } catch (error) {
      skipped.push({ name: row.name, reason: `Word to PDF failed: ${error.message}` });
      continue;
    }
    const markdown = await runEngine(pdfToMarkdown, pdf, bornDigitalOptions);
    if (markdown.error) {
      rows.push({ name: row.name, failed: markdown.error });
      process.stderr.write(`${row.name}: PDF to Markdown failed: ${markdown.error}\n`);
      continue;
    }
    const { text: ours, seconds, warnings } = markdown;
    const plain = execFileSync("pdftotext", ["-enc", "UTF-8", pdf, "-"], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    if (values.keep) {
      writeFileSync(join(values.keep, `${stem}.pandoc.md`), truthMarkdown);
      writeFileSync(join(values.keep, `${stem}.ours.md`), ours);
      writeFileSync(join(values.keep, `${stem}.pdf`), readFileSync(pdf));
    }
    const truth = readStructure(truthMarkdown);
    const found = readStructure(ours);
    const truthWords = words(truth.text);
    const edit = wordEditDistance(truthWords, words(found.text));
    const floor = wordEditDistance(truthWords, words(plain));
    rows.push({
      name: row.name,
      pages: pageCount(pdf),
      seconds,
      warnings,
      words: { truth: truthWords.length, ours: words(found.text).length },
      edit,
      pdftotextEdit: floor,
      headings: multisetF1(
        truth.headings.map((h) => h.key),
        found.headings.map((h) => h.key),
      ),
      headingLevels: headingLevelAgreement(truth.headings, found.headings),
      listItems: multisetF1(
        truth.listItems.map((i) => i.text),
        found.listItems.map((i) => i.text),
      ),
      cells: multisetF1(truth.tableCells, found.tableCells),
      tables: { truth: truth.tables.length, ours: found.tables.length },
    });
    process.stderr.write(`${row.name}: ${rows.at(-1).pages} pages, ${seconds.toFixed(2)} s\n`);
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await converter.close();
  rmSync(work, { recursive: true, force: true });
}

// ---------- report ----------

const fmt = (v, digits = 3) =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(digits);
const f1Cell = (r) => `${fmt(r.f1)} (${r.matched}/${r.truth}/${r.found})`;
const scored = rows.filter((r) => !r.failed);
console.log(
  `PDF to Markdown against \`pandoc -t gfm --wrap=none\` (${pandocVersion}); Word to PDF by @octavo/office.\n` +
    "Edit distance: word-level Levenshtein / longer word count (goal ≤ 0.05). F1 cells: F1 (matched/pandoc/ours).\n",
);
console.log(
  "| file | pages | words pandoc / ours | edit distance | pdftotext edit distance | headings F1 | levels | list items F1 | tables pandoc / ours | table cells F1 |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  if (r.failed) {
    console.log(`| ${r.name} | failed: ${r.failed} ||||||||||`);
    continue;
  }
  console.log(
    `| ${r.name} | ${r.pages} | ${r.words.truth} / ${r.words.ours} | ${fmt(r.edit.normalised)} | ${fmt(r.pdftotextEdit.normalised)} | ${f1Cell(r.headings)} | ${fmt(r.headingLevels, 2)} | ${f1Cell(r.listItems)} | ${r.tables.truth} / ${r.tables.ours} | ${f1Cell(r.cells)} |`,
  );
}
const mean = (list) => (list.length ? list.reduce((s, v) => s + v, 0) / list.length : null);
const present = (list) => list.filter((v) => v !== null && v !== undefined);
/** Σ distance / Σ longer word count: the distance of all files' words as one text. */
const pooledEdit = () => {
  const distance = scored.reduce((s, r) => s + r.edit.distance, 0);
  const longest = scored.reduce((s, r) => s + Math.max(r.words.truth, r.words.ours), 0);
  return longest ? distance / longest : null;
};
const overall = {
  files: scored.length,
  failed: rows.length - scored.length,
  editDistance: {
    median: median(scored.map((r) => r.edit.normalised)),
    mean: mean(scored.map((r) => r.edit.normalised)),
    pooled: pooledEdit(),
  },
  pdftotextEditDistance: { median: median(scored.map((r) => r.pdftotextEdit.normalised)) },
  headingF1: {
    pooled: pooledF1(scored.map((r) => r.headings)),
    mean: mean(present(scored.map((r) => r.headings.f1))),
  },
  headingLevelAgreement: mean(present(scored.map((r) => r.headingLevels))),
  listItemF1: {
    pooled: pooledF1(scored.map((r) => r.listItems)),
    mean: mean(present(scored.map((r) => r.listItems.f1))),
  },
  tableCellF1: {
    pooled: pooledF1(scored.map((r) => r.cells)),
    mean: mean(present(scored.map((r) => r.cells.f1))),
  },
};
console.log(
  `\n${overall.files} files scored${overall.failed ? `, ${overall.failed} failed` : ""}.\n` +
    `- edit distance (words): median ${fmt(overall.editDistance.median)}, mean ${fmt(overall.editDistance.mean)}, pooled ${fmt(overall.editDistance.pooled)} (goal ≤ 0.05); pdftotext median ${fmt(overall.pdftotextEditDistance.median)}\n` +
    `- heading F1: pooled ${fmt(overall.headingF1.pooled)}, per-file mean ${fmt(overall.headingF1.mean)}; levels agree on ${fmt(overall.headingLevelAgreement, 2)} of matched headings\n` +
    `- list-item F1: pooled ${fmt(overall.listItemF1.pooled)}, per-file mean ${fmt(overall.listItemF1.mean)}\n` +
    `- table-cell F1: pooled ${fmt(overall.tableCellF1.pooled)}, per-file mean ${fmt(overall.tableCellF1.mean)}`,
);
if (skipped.length) {
  console.log("\nSkipped:\n");
  for (const s of skipped) console.log(`- ${s.name}: ${s.reason}`);
}
const sample = (list, n = 8) =>
  list.length
    ? `${list
        .slice(0, n)
        .map((t) => `\`${t.slice(0, 60)}\``)
        .join(", ")}${list.length > n ? ` … (${list.length})` : ""}`
    : "none";
console.log(
  "\nDifferences (normalised texts; missing = pandoc has it and we do not, extra = the reverse):\n",
);
for (const r of scored) {
  console.log(`- ${r.name}${r.warnings.length ? ` (warnings: ${r.warnings.join("; ")})` : ""}`);
  for (const [label, score] of [
    ["headings", r.headings],
    ["list items", r.listItems],
    ["table cells", r.cells],
  ]) {
    if (!score.missing.length && !score.extra.length) continue;
    console.log(`  - ${label} missing: ${sample(score.missing)}; extra: ${sample(score.extra)}`);
  }
}
if (values.json)
  writeFileSync(
    values.json,
    `${JSON.stringify({ pandoc: pandocVersion, rows, skipped, overall }, null, 2)}\n`,
  );
