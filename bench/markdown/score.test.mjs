// Self-test of the PDF to Markdown benches' scorers (score.mjs) and Markdown table reader
// (read-markdown.mjs), on hand-made inputs and, when ../shared/corpus is there, on the pdf-parse-bench
// ground truth (its LaTeX tables read back must have the shape and texts of their CSVs):
//
//   node --test bench/markdown/score.test.mjs
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseCsv } from "../../packages/layout/test/csv.ts";
import {
  htmlToText,
  inlineToText,
  markdownToText,
  readMarkdownTables,
  splitPipeRow,
} from "./read-markdown.mjs";
import {
  completeGrid,
  corpusDir,
  flattenOutline,
  latexToText,
  levelAgreement,
  levenshtein,
  matchHeadings,
  matchTables,
  normaliseCell,
  normaliseForSearch,
  parseTabular,
  scoreCells,
  splitTabular,
  stripNumbering,
  teds,
  textBlockRecall,
  titlesMatch,
  treeEditDistance,
  withCsvTexts,
} from "./score.mjs";

/** A grid as rows of texts (a spanned position as null), for comparing parsed tables. */
function layout(grid) {
  const rows = Array.from({ length: grid.rows }, () => Array(grid.columns).fill(null));
  for (const c of grid.cells)
    rows[c.row][c.column] =
      `${c.text}${c.rowSpan > 1 || c.columnSpan > 1 ? `[${c.rowSpan}x${c.columnSpan}]` : ""}`;
  return rows;
}

const cell = (row, column, text, rowSpan = 1, columnSpan = 1) => ({ row, column, rowSpan, columnSpan, text });

// ---------------------------------------------------------------------------------------------------------
// read-markdown.mjs

test("inline Markdown to text: emphasis, code, links, escapes, entities, <br>", () => {
  assert.equal(inlineToText("**Total** and *net* and __x__"), "Total and net and x");
  assert.equal(inlineToText("`a|b*c*` and [link](http://x.y) ![alt](f.png)"), "a|b*c* and link alt");
  assert.equal(inlineToText("5 \\* 3 \\_x\\_ 10\\%"), "5 * 3 _x_ 10%");
  assert.equal(inlineToText("a&lt;b &amp; c&#8722;1<br>next<br/>end"), "a<b & c−1 next end");
  assert.equal(inlineToText("snake_case_name and 2*3*4"), "snake_case_name and 2*3*4");
  assert.equal(htmlToText("<b>A</b> &amp; <i>B</i><br />C"), "A & B C");
});

test("pipe rows split on unescaped pipes", () => {
  assert.deepEqual(splitPipeRow("| a | b \\| c |  |"), ["a", "b | c", ""]);
  assert.deepEqual(splitPipeRow("a | b"), ["a", "b"]);
});

test("reads GFM pipe tables: header, alignment row, body, padding, end at a blank line", () => {
  const md = [
    "# Title",
    "",
    "| Name | Value |",
    "|:-----|------:|",
    "| **a** | 1 |",
    "| b |",
    "| c | 3 | extra |",
    "",
    "Text after | with a pipe.",
  ].join("\n");
  const [table, ...rest] = readMarkdownTables(md);
  assert.equal(rest.length, 0);
  assert.equal(table.kind, "pipe");
  assert.equal(table.line, 2);
  assert.equal(table.rows, 4);
  assert.equal(table.columns, 2);
  assert.deepEqual(layout(table), [
    ["Name", "Value"],
    ["a", "1"],
    ["b", ""],
    ["c", "3"],
  ]);
});

test("reads HTML tables with rowspan and colspan onto a grid", () => {
  const md = [
    "Before.",
    "",
    "<table>",
    "<tr><th rowspan=\"2\">Method</th><th colspan='2'>Score &amp; time</th></tr>",
    "<tr><th>A</th><th>B</th></tr>",
    "<tr><td>x<br>y</td><td>1 &lt; 2</td><td></td></tr>",
    "</table>",
    "",
    "<table><tr><td colspan=3>wide</td></tr><tr><td>1</td><td rowspan=2>2</td><td>3</td></tr><tr><td>4</td><td>5</td></tr></table>",
  ].join("\n");
  const tables = readMarkdownTables(md);
  assert.equal(tables.length, 2);
  assert.equal(tables[0].kind, "html");
  assert.deepEqual(layout(tables[0]), [
    ["Method[2x1]", "Score & time[1x2]", null],
    [null, "A", "B"],
    ["x y", "1 < 2", ""],
  ]);
  assert.equal(tables[0].cells[0].header, true);
  assert.deepEqual(layout(tables[1]), [
    ["wide[1x3]", null, null],
    ["1", "2[2x1]", "3"],
    ["4", null, "5"],
  ]);
});

test("tables inside fenced code are not read; markdownToText drops markup", () => {
  const md = [
    "```",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "```",
    "",
    "## Heading",
    "- item *one*",
    "> quoted",
  ].join("\n");
  assert.equal(readMarkdownTables(md).length, 0);
  const text = markdownToText(md);
  assert.match(text, /Heading\nitem one\nquoted$/);
  assert.equal(markdownToText("| a | b |\n|---|---|\n| 1 | 2 |"), "a b\n\n1 2");
});

// ---------------------------------------------------------------------------------------------------------
// LaTeX

test("LaTeX cell text as the corpus's CSVs write it", () => {
  assert.equal(latexToText("\\textbf{Overall accuracy}"), "Overall accuracy");
  assert.equal(latexToText("Privacy Loss $L_S$ (\\%)"), "Privacy Loss LS (%)");
  assert.equal(latexToText("$98.87^{\\pm0.00}$"), "98.87±0.00");
  assert.equal(latexToText("$U$-Act. ($\\uparrow$)"), "U-Act. (↑)");
  assert.equal(latexToText("$-3.33$"), "−3.33");
  assert.equal(latexToText("$7\\text{GHz}$"), "7GHz");
  assert.equal(latexToText("NMSE(dB) vs. $f_{\\rm c}$"), "NMSE(dB) vs. fc");
  assert.equal(latexToText("\\textsc{Cloak}"), "Cloak");
  assert.equal(latexToText("Geosciences \\& ocean, a\\_b \\#1"), "Geosciences & ocean, a_b #1");
  assert.equal(latexToText("\\makecell[c]{Sampling \\\\ Method}"), "Sampling Method");
  assert.equal(latexToText("\\cellcolor[HTML]{9AFF99}0.0526"), "0.0526");
  assert.equal(latexToText("\\textcolor{red}{\\textit{up}} \\hspace{2pt}x"), "up x");
  assert.equal(latexToText('\\verb"\\Cap", \\verb"\\doublecap"'), "\\Cap, \\doublecap");
  assert.equal(
    latexToText("\\begin{tabular}[c]{@{}c@{}}IsReached(loc)\\\\ !IsHolding\\end{tabular}"),
    "IsReached(loc) !IsHolding",
  );
  assert.equal(latexToText("1990--2000 and Cram\\'{e}r's"), "1990–2000 and Cramér’s");
  assert.equal(latexToText("$\\frac{1}{2}$ and $2^\\circ$ 5 % comment"), "1/2 and 2◦ 5");
});

test("splits a tabular at \\\\ and & outside braces and nested environments", () => {
  const rows = splitTabular(
    "\\begin{tabular}{@{}l|c@{}}\n\\toprule\na & \\makecell{x \\\\ y} \\\\[2pt]\n\\begin{tabular}{c}p & q\\\\r\\end{tabular} & \\verb|&| \\\\ % c & d\n\\bottomrule\n\\end{tabular}",
  );
  assert.equal(rows.length, 3);
  assert.deepEqual(
    rows.slice(0, 2).map((r) => r.map((c) => c.trim())),
    [
      ["\\toprule\na", "\\makecell{x \\\\ y}"],
      ["\\begin{tabular}{c}p & q\\\\r\\end{tabular}", "\\verb|&|"],
    ],
  );
  assert.equal(rows[2].join("").trim(), "\\bottomrule");
});

test("parses \\multicolumn and \\multirow into spans; drops placeholders and rule rows", () => {
  const grid = parseTabular(
    [
      "\\begin{tabular}{cccccc}",
      "\\toprule",
      "\\multirow{2}{*}{MLLM} & \\multirow[c]{2}{*}{Frames} & \\multicolumn{2}{c}{VideoMME} & \\multicolumn{2}{c}{LongVideoBench}\\\\",
      "\\cmidrule(lr){3-4} \\cmidrule(lr){5-6}",
      "& & $\\tau$ & $\\gamma$ & $\\tau$ & $\\gamma$ \\\\",
      "\\midrule",
      "Qwen & 32 & 0.4 & 0.7 & 0.2 & 0.6 \\\\",
      "\\bottomrule",
      "\\end{tabular}",
    ].join("\n"),
  );
  assert.deepEqual(layout(grid), [
    ["MLLM[2x1]", "Frames[2x1]", "VideoMME[1x2]", null, "LongVideoBench[1x2]", null],
    [null, null, "τ", "γ", "τ", "γ"],
    ["Qwen", "32", "0.4", "0.7", "0.2", "0.6"],
  ]);
});

test("negative \\multirow moves up over its empty placeholders; overrunning spans are cut", () => {
  const negative = parseTabular(
    "\\begin{tabular}{ccc}\nSTL & \\cellcolor{white} & 1 \\\\\nMTL & \\multirow{-2}{*}{\\cellcolor{white}\\textbf{UNet}} & 2 \\\\\n\\end{tabular}",
  );
  assert.deepEqual(layout(negative), [
    ["STL", "UNet[2x1]", "1"],
    ["MTL", null, "2"],
  ]);
  const overrun = parseTabular(
    "\\begin{tabular}{lc}\n\\multirow[c]{3}{*}{Model} & A \\\\\n& B \\\\\nReLU & 1 \\\\\n\\end{tabular}",
  );
  assert.deepEqual(layout(overrun), [
    ["Model[2x1]", "A"],
    [null, "B"],
    ["ReLU", "1"],
  ]);
  const pastEnd = parseTabular(
    "\\begin{tabular}{ll}\n\\multirow{8}{*}{SFT} & a \\\\\n& b \\\\\n\n\\bottomrule\n\\end{tabular}",
  );
  assert.deepEqual(layout(pastEnd), [
    ["SFT[2x1]", "a"],
    [null, "b"],
  ]);
});

test("CSV texts replace the LaTeX texts when the shapes agree", () => {
  const grid = parseTabular(
    "\\begin{tabular}{ll}\n\\multicolumn{2}{c}{$x^2$} \\\\\na & b \\\\\n\\end{tabular}",
  );
  const { grid: withCsv, fromCsv } = withCsvTexts(grid, [
    ["x2 (csv)", ""],
    ["a", "b"],
    ["", ""],
  ]);
  assert.equal(fromCsv, true);
  assert.equal(withCsv.cells[0].text, "x2 (csv)");
  assert.equal(withCsv.cells[0].columnSpan, 2);
  assert.equal(withCsvTexts(grid, [["x"], ["a"]]).fromCsv, false);
});

test("the corpus's LaTeX tables read back with their CSVs' shapes and texts", {
  skip: !existsSync(join(corpusDir, "structure")),
}, () => {
  const dir = join(corpusDir, "structure");
  let tables = 0;
  let shaped = 0;
  let texts = 0;
  let same = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".truth.json"))) {
    const stem = name.replace(".truth.json", "");
    const truth = JSON.parse(readFileSync(join(dir, name), "utf8")).filter((b) => b.type === "table");
    truth.forEach((block, k) => {
      tables++;
      const csv = parseCsv(readFileSync(join(dir, `${stem}.table${k + 1}.csv`), "utf8"));
      const grid = parseTabular(block.data);
      const { fromCsv } = withCsvTexts(grid, csv);
      if (!fromCsv) return;
      shaped++;
      const rows = csv.filter((r) => r.some((t) => t.trim() !== ""));
      for (const c of grid.cells) {
        texts++;
        if (normaliseCell(c.text) === normaliseCell(rows[c.row][c.column] ?? "")) same++;
      }
    });
  }
  assert.ok(tables >= 200);
  assert.ok(shaped / tables >= 0.98, `${shaped}/${tables} tables shaped as their CSV`);
  assert.ok(same / texts >= 0.99, `${same}/${texts} cell texts as in the CSV`);
});

// ---------------------------------------------------------------------------------------------------------
// Tables: F1, TEDS, matching

test("cell F1 is table-score.ts's multiset F1", () => {
  const score = scoreCells(["A", "b", "b", ""], ["a", "B", "c"]);
  assert.equal(score.precision, 2 / 3);
  assert.equal(score.recall, 2 / 3);
});

test("Levenshtein and Zhang–Shasha tree edit distance", () => {
  assert.equal(levenshtein("kitten", "sitting"), 3);
  assert.equal(levenshtein([..."abc"], []), 3);
  // Zhang & Shasha's example: f(d(a c(b)) e) → f(c(d(a b)) e), distance 2
  const n = (label, ...children) => ({ label, children });
  const t1 = n("f", n("d", n("a"), n("c", n("b"))), n("e"));
  const t2 = n("f", n("c", n("d", n("a"), n("b"))), n("e"));
  const rename = (x, y) => (x.label === y.label ? 0 : 1);
  assert.equal(treeEditDistance(t1, t2, rename), 2);
  assert.equal(treeEditDistance(t1, t1, rename), 0);
  assert.equal(treeEditDistance(n("a"), n("b", n("c")), rename), 2);
});

test("TEDS: identical 1, a cell's text, a span, a missing row", () => {
  const truth = [
    cell(0, 0, "Method", 2),
    cell(0, 1, "Score", 1, 2),
    cell(1, 1, "A"),
    cell(1, 2, "B"),
    cell(2, 0, "x"),
    cell(2, 1, "10"),
    cell(2, 2, "20"),
  ];
  // 1 table + 3 tr + 7 td = 11 nodes
  assert.equal(teds(truth, truth), 1);
  const typo = truth.map((c) => (c.text === "Score" ? { ...c, text: "Scone" } : c));
  assert.ok(Math.abs(teds(truth, typo) - (1 - 0.2 / 11)) < 1e-12);
  assert.equal(teds(truth, typo, { structureOnly: true }), 1);
  // the header not merged: "Score" spans 1, an empty cell beside it (the completed grid)
  const unmerged = truth.map((c) => (c.text === "Score" ? { ...c, columnSpan: 1 } : c));
  // rename the td (spans differ: 1) and insert an empty td (1)
  assert.ok(Math.abs(teds(truth, unmerged) - (1 - 2 / 12)) < 1e-12);
  const noLastRow = truth.filter((c) => c.row < 2);
  assert.ok(Math.abs(teds(truth, noLastRow) - (1 - 4 / 11)) < 1e-12);
  assert.equal(teds(truth, []), 1 - 10 / 11);
});

test("completed grids: omitted empty cells cost nothing", () => {
  const full = [cell(0, 0, "a"), cell(0, 1, ""), cell(1, 0, ""), cell(1, 1, "b")];
  const sparse = [cell(0, 0, "a"), cell(1, 1, "b")];
  assert.equal(completeGrid(sparse).cells.length, 4);
  assert.equal(teds(full, sparse), 1);
});

test("tables matched one to one, greedily by score", () => {
  const score = (t, o) => scoreCells(o, t).f1;
  const truths = [["a", "b", "c"], ["x", "y"], ["q"]];
  const outputs = [["x", "y", "z"], ["a", "b", "c", "x"], ["zzz"]];
  assert.deepEqual(matchTables(truths, outputs, score), [1, 0, -1]);
  // two truths that want the same output: the better one gets it
  assert.deepEqual(matchTables([["a", "b"], ["a"]], [["a", "b"]], score), [0, -1]);
});

// ---------------------------------------------------------------------------------------------------------
// Text blocks

test("normalised search text drops markup, folds quotes and dashes", () => {
  assert.equal(normaliseForSearch("**Don’t** — re-use\n\n`x_y`  ﬁne"), "don t re use x y fine");
  assert.equal(normaliseForSearch("$\\alpha$ \\textbf{Bold}"), "bold");
});

test("text blocks found anywhere and in order", () => {
  const doc = "# Intro\n\nSecond block here. More.\n\nFirst *block*\ntext — continued.\n\nThird.";
  const result = textBlockRecall(
    ["First block text - continued.", "Second block here.", "Third.", "Missing.", "  "],
    doc,
  );
  assert.equal(result.total, 4);
  assert.equal(result.found, 3);
  // First is found; Second lies before it (out of order); Third after First
  assert.equal(result.inOrder, 2);
  assert.deepEqual(
    result.blocks.map((b) => [b.found, b.inOrder]),
    [
      [true, true],
      [true, false],
      [true, true],
      [false, false],
    ],
  );
  // whole words only
  assert.equal(textBlockRecall(["cat"], "concatenate").found, 0);
});

// ---------------------------------------------------------------------------------------------------------
// Headings

test("titles match when equal, mostly contained, or equal without numbering", () => {
  assert.equal(titlesMatch("Introduction", "INTRODUCTION"), "exact");
  assert.equal(titlesMatch("1.2 Results", "Results"), "exact");
  assert.equal(titlesMatch("Chapter 3 - Methods", "3 Methods"), "exact");
  assert.equal(titlesMatch("Capítulo 01 - Introdução", "Introdução"), "exact");
  assert.equal(titlesMatch("Related work and background", "Related work and backgrounds."), "contained");
  assert.equal(titlesMatch("Results", "Results of the large experiment"), null);
  assert.equal(titlesMatch("Methods", "Results"), null);
  assert.equal(stripNumbering("iv. appendix"), "appendix");
  assert.equal(stripNumbering("2021 budget"), "budget");
  assert.equal(stripNumbering("1"), "1");
});

test("outline flattened with depths; entries outside the pages dropped", () => {
  const outline = [
    {
      title: "One",
      page: 0,
      down: [
        { title: "One.a", page: 1 },
        { title: "Gone", page: 99 },
      ],
    },
    { title: "  ", page: 2, down: [{ title: "Child of untitled", page: 2 }] },
    { title: "Two", page: 3 },
  ];
  assert.deepEqual(flattenOutline(outline, 4), [
    { title: "One", page: 0, depth: 0 },
    { title: "One.a", page: 1, depth: 1 },
    { title: "Child of untitled", page: 2, depth: 1 },
    { title: "Two", page: 3, depth: 0 },
  ]);
});

test("headings matched one to one, nearest page first; recall, precision, level agreement", () => {
  const entries = [
    { title: "1 Introduction", page: 0, depth: 0 },
    { title: "1.1 Scope", page: 0, depth: 1 },
    { title: "2 Methods", page: 2, depth: 0 },
    { title: "Appendix", page: 5, depth: 0 },
  ];
  const headings = [
    { text: "Introduction", page: 1, level: 1 },
    { text: "Scope", page: 1, level: 2 },
    { text: "Methods", page: 1, level: 2 }, // a running mention on page 1
    { text: "Methods", page: 3, level: 1 },
    { text: "Acknowledgements", page: 5, level: 1 },
  ];
  const { pairs, recall, precision } = matchHeadings(entries, headings);
  assert.equal(recall, 3 / 4);
  assert.equal(precision, 3 / 5);
  assert.deepEqual(
    pairs.map((p) => [p.entry.title, p.heading.page]),
    [
      ["1 Introduction", 1],
      ["1.1 Scope", 1],
      ["2 Methods", 3],
    ],
  );
  assert.deepEqual(levelAgreement(pairs), { relative: 1, pairwise: 1 });
  const shifted = pairs.map((p, k) => (k === 1 ? { ...p, heading: { ...p.heading, level: 1 } } : p));
  const agreement = levelAgreement(shifted);
  assert.equal(agreement.relative, 2 / 3);
  assert.equal(agreement.pairwise, 1 / 3);
  assert.deepEqual(levelAgreement([]), { relative: null, pairwise: null });
});
