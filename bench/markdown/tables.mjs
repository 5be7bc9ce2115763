#!/usr/bin/env node
// PDF to Markdown on pdf-parse-bench's documents (../shared/corpus/structure/pdfparse_NNN.pdf, 50 synthetic
// LaTeX documents, 226 tables): each document converted in-process, once with format "json" (tables from
// its elements' cells) and once with format "markdown" (the text that a user gets), each in a fresh work
// directory. Measured:
//
// - Table cell-content F1 (packages/layout/test/table-score.ts's scoreCells, multiset of normalised
//   non-empty cell texts) of each truth table (its pdfparse_NNN.tableK.csv) against the output table of the
//   same document that score.mjs's matchTables pairs it with (one to one, greedy by F1; unmatched: 0).
//   Mean over tables, overall, by ruling (MANIFEST.tsv: full grid / horizontal only / none; goal ≥ 90 %
//   overall and ≥ 85 % without full grid) and by complexity. The same F1 with the tables read back out of
//   the Markdown (read-markdown.mjs) is shown beside it: it should not differ.
// - TEDS (score.mjs: PubTabNet's tree-edit-distance similarity on table → tr → td with spans) of the same
//   pairs, against the truth's LaTeX tabular parsed into a grid with its \multicolumn/\multirow spans and the
//   CSV's texts; and TEDS-S (structure only: spans and shape, text ignored).
// - Text-block recall: the truth.json's text blocks searched in the Markdown output's text, normalised
//   (score.mjs's normaliseForSearch: NFKC, lower case, markup and punctuation out, spaces collapsed); "in
//   order" = found after the previous block found in order (goal ≥ 98 %), "anywhere" beside it. With
//   --text-from json the text is the JSON elements' texts joined and the Markdown run is skipped.
//
//   pnpm exec turbo run build
//   node bench/markdown/tables.mjs [--documents pdfparse_000,pdfparse_011] [--text-from json] \
//     [--json /tmp/markdown-tables.json] > /tmp/markdown-tables.md
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseCsv } from "../../packages/layout/test/csv.ts";
import { loadMarkdownEngine, runEngine } from "./engine.mjs";
import { readMarkdownTables } from "./read-markdown.mjs";
import {
  cellTexts,
  corpusDir,
  markdownTable,
  matchTables,
  mean,
  parseTabular,
  pct,
  scoreCells,
  teds,
  textBlockRecall,
  withCsvTexts,
} from "./score.mjs";

const { values } = parseArgs({
  options: {
    documents: { type: "string" },
    json: { type: "string" },
    "text-from": { type: "string", default: "markdown" },
  },
});
const textFromJson = values["text-from"] === "json";
const dir = join(corpusDir, "structure");

/** "pdfparse_000.table1.csv" → { rules, complexity }, from MANIFEST.tsv's descriptions. */
function tableClasses() {
  const classes = new Map();
  for (const line of readFileSync(join(corpusDir, "MANIFEST.tsv"), "utf8").split("\n")) {
    const columns = line.split("\t");
    const path = columns[0];
    if (!path.startsWith("structure/") || !path.endsWith(".csv")) continue;
    const found = /rules: ([a-z ]+?), complexity: ([a-z]+)/.exec(columns.at(-1));
    if (found) classes.set(path.slice("structure/".length), { rules: found[1], complexity: found[2] });
  }
  return classes;
}

const classes = tableClasses();
const documents =
  values.documents?.split(",") ??
  readdirSync(dir)
    .filter((name) => name.endsWith(".pdf"))
    .map((name) => name.slice(0, -4))
    .sort();
const engine = await loadMarkdownEngine();

const tableRows = [];
const documentRows = [];
const missedBlocks = [];
let latexFallbacks = 0;

for (const document of documents) {
  const pdf = join(dir, `${document}.pdf`);
  const truth = JSON.parse(readFileSync(join(dir, `${document}.truth.json`), "utf8"));
  const truthTables = truth
    .filter((block) => block.type === "table")
    .map((block, index) => {
      const csvName = `${document}.table${index + 1}.csv`;
      const csv = parseCsv(readFileSync(join(dir, csvName), "utf8"));
      const parsed = parseTabular(block.data);
      const { grid, fromCsv } = parsed ? withCsvTexts(parsed, csv) : { grid: null, fromCsv: false };
      if (!fromCsv) latexFallbacks++;
      return {
        csvName,
        cells: csv.flat(),
        grid,
        ...(classes.get(csvName) ?? { rules: "?", complexity: "?" }),
      };
    });
  const textBlocks = truth.filter((block) => block.type === "text").map((block) => block.data);

  const json = await runEngine(engine, pdf, { format: "json" });
  const elements = json.error ? [] : JSON.parse(json.text).elements;
  const ours = elements.filter((e) => e.type === "table");
  const markdown = textFromJson ? null : await runEngine(engine, pdf, { format: "markdown" });
  const markdownTables = markdown?.text ? readMarkdownTables(markdown.text) : [];

  const f1 = (t, cells) => scoreCells(cells, t.cells).f1;
  const match = matchTables(truthTables, ours, (t, o) => f1(t, cellTexts(o)));
  const markdownMatch = matchTables(truthTables, markdownTables, (t, o) => f1(t, cellTexts(o)));
  truthTables.forEach((t, index) => {
    const our = ours[match[index]];
    const fromMarkdown = markdownTables[markdownMatch[index]];
    tableRows.push({
      document,
      table: index + 1,
      rules: t.rules,
      complexity: t.complexity,
      f1: our ? f1(t, cellTexts(our)) : 0,
      teds: our && t.grid ? teds(t.grid.cells, our.cells) : 0,
      tedsStructure: our && t.grid ? teds(t.grid.cells, our.cells, { structureOnly: true }) : 0,
      markdownF1: textFromJson ? null : fromMarkdown ? f1(t, cellTexts(fromMarkdown)) : 0,
      truthShape: t.grid ? `${t.grid.rows}×${t.grid.columns}` : "?",
      ourShape: our ? `${our.rows}×${our.columns}` : "none",
    });
  });

  const text = textFromJson ? elements.map((e) => e.text).join("\n\n") : (markdown.text ?? "");
  const recall = textBlockRecall(textBlocks, text);
  for (const block of recall.blocks)
    if (!block.inOrder) missedBlocks.push({ document, found: block.found, text: block.text });
  const error = json.error ?? markdown?.error;
  documentRows.push({
    document,
    truthTables: truthTables.length,
    ourTables: ours.length,
    markdownTables: textFromJson ? null : markdownTables.length,
    unmatchedOutputTables: ours.length - match.filter((k) => k >= 0).length,
    textBlocks: recall.total,
    textInOrder: recall.inOrder,
    textFound: recall.found,
    seconds: (json.seconds ?? 0) + (markdown?.seconds ?? 0),
    error,
  });
  process.stderr.write(
    `${document}: ${truthTables.length} tables, ${ours.length} found; text ${recall.inOrder}/${recall.total} in order${error ? ` (${error})` : ""}\n`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Report

const summarise = (rows) => ({
  tables: rows.length,
  f1: mean(rows.map((r) => r.f1)),
  teds: mean(rows.map((r) => r.teds)),
  tedsStructure: mean(rows.map((r) => r.tedsStructure)),
  markdownF1: textFromJson ? null : mean(rows.map((r) => r.markdownF1)),
});
const line = (label, rows) => {
  const s = summarise(rows);
  return [label, s.tables, pct(s.f1), pct(s.teds), pct(s.tedsStructure), pct(s.markdownF1)];
};
const header = ["tables", "n", "cell F1 %", "TEDS %", "TEDS-S %", "F1 from .md %"];
const sum = (key) => documentRows.reduce((s, r) => s + r[key], 0);
const noGrid = tableRows.filter((r) => r.rules !== "full grid");
const overall = summarise(tableRows);
const text = { blocks: sum("textBlocks"), inOrder: sum("textInOrder"), found: sum("textFound") };

console.log(
  `# PDF to Markdown on pdf-parse-bench (${documents.length} documents, ${tableRows.length} tables)\n`,
);
console.log(
  markdownTable(
    ["measure", "value %", "goal %"],
    [
      ["table cell F1, all tables", pct(overall.f1), "≥ 90"],
      ["table cell F1, no full grid (horizontal only + none)", pct(summarise(noGrid).f1), "≥ 85"],
      ["TEDS, all tables", pct(overall.teds), ""],
      ["TEDS-S (structure only), all tables", pct(overall.tedsStructure), ""],
      [
        `text blocks found in order (of ${text.blocks}; text from ${textFromJson ? "JSON" : "Markdown"})`,
        pct(text.inOrder / Math.max(1, text.blocks)),
        "≥ 98",
      ],
      ["text blocks found anywhere", pct(text.found / Math.max(1, text.blocks)), ""],
    ],
  ),
);
console.log("\n## Tables by ruling and complexity\n");
console.log(
  markdownTable(header, [
    line("all", tableRows),
    ...["full grid", "horizontal only", "none"].map((rules) =>
      line(
        rules,
        tableRows.filter((r) => r.rules === rules),
      ),
    ),
    line("horizontal only + none", noGrid),
    ...["simple", "moderate", "complex"].map((c) =>
      line(
        `complexity ${c}`,
        tableRows.filter((r) => r.complexity === c),
      ),
    ),
  ]),
);
console.log(
  `\nOutput tables matched to no truth table: ${sum("unmatchedOutputTables")} (of ${sum("ourTables")}). ` +
    `Truth tables without a match: ${tableRows.filter((r) => r.ourShape === "none").length}. ` +
    `Truth grids with LaTeX texts (CSV shape differs): ${latexFallbacks}.`,
);
console.log("\n## Worst 10 tables\n");
console.log(
  markdownTable(
    ["document", "table", "ruling", "complexity", "F1 %", "TEDS %", "truth rows×cols", "ours"],
    [...tableRows]
      .sort((a, b) => a.f1 - b.f1 || a.teds - b.teds)
      .slice(0, 10)
      .map((r) => [
        r.document,
        r.table,
        r.rules,
        r.complexity,
        pct(r.f1),
        pct(r.teds),
        r.truthShape,
        r.ourShape,
      ]),
  ),
);
console.log("\n## Per document\n");
console.log(
  markdownTable(
    ["document", "tables", "ours", "unmatched ours", "F1 %", "TEDS %", "text in order", "seconds", "error"],
    documentRows.map((d) => {
      const rows = tableRows.filter((r) => r.document === d.document);
      return [
        d.document,
        d.truthTables,
        d.ourTables,
        d.unmatchedOutputTables,
        pct(mean(rows.map((r) => r.f1))),
        pct(mean(rows.map((r) => r.teds))),
        `${d.textInOrder}/${d.textBlocks}`,
        d.seconds.toFixed(1),
        d.error ?? "",
      ];
    }),
  ),
);
if (missedBlocks.length) {
  console.log(`\n## Text blocks not found in order (first 10 of ${missedBlocks.length})\n`);
  console.log(
    markdownTable(
      ["document", "found elsewhere", "block"],
      missedBlocks.slice(0, 10).map((b) => [b.document, b.found ? "yes" : "no", b.text.slice(0, 100)]),
    ),
  );
}
if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify(
      { summary: { overall, noGrid: summarise(noGrid), text }, tables: tableRows, documents: documentRows },
      null,
      2,
    ),
  );
