// Self-test of structure-score.mjs on hand-written Markdown, in the shapes pandoc (`-t gfm --wrap=none`) and
// our PDF to Markdown write:
//
//   node --test bench/markdown/structure-score.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  headingLevelAgreement,
  inlineText,
  keyOf,
  markdownToText,
  multisetF1,
  parseHtmlTables,
  pooledF1,
  readStructure,
  splitPipeRow,
  withoutSectionNumber,
  wordEditDistance,
  words,
} from "./structure-score.mjs";

test("words: NFKC, lower case, hyphens split, edge punctuation trimmed, CJK one per character", () => {
  assert.deepEqual(words("The ﬁrst well-known “Test”, e.g. 3.5 — done!"), [
    "the",
    "first",
    "well",
    "known",
    "test",
    "e.g",
    "3.5",
    "done",
  ]);
  assert.deepEqual(words("ゾルゲと (ＧＨＱ)"), ["ゾ", "ル", "ゲ", "と", "ghq"]);
  assert.deepEqual(words("soft\u00adhyphen zero\u200bwidth"), ["softhyphen", "zero", "width"]);
  assert.deepEqual(words("  * ** | "), []);
  assert.deepEqual(words("mail \ue3db http"), ["mail", "http"]); // a Wingdings glyph: private use
  assert.equal(keyOf("**Phase 1:**"), "phase 1");
});

test("inlineText: emphasis, links, images, footnote references, HTML, escapes, entities", () => {
  assert.equal(inlineText("**Bold** *italic* <u>under</u> ~~gone~~ `code`"), "Bold italic under gone code");
  assert.equal(inlineText("*ita~~li~~c* and snake_case_name and _em_"), "italic and snake_case_name and em");
  assert.equal(inlineText("[<u>This is a hyperlink</u>](http://tika.apache.org/)"), "This is a hyperlink");
  assert.equal(inlineText("See [a (b)](http://x/y_(z)) now"), "See a (b) now");
  assert.equal(inlineText("before ![image](figure-1.png) after ![](<my file.png>)"), "before after");
  assert.equal(inlineText('<img src="media/image1.png" style="width:2in" /> text'), "text");
  assert.equal(inlineText("Footnote appears here[^1]"), "Footnote appears here");
  assert.equal(inlineText("X<sup>2</sup> + Y<sub>2</sub> = Z<br />next"), "X2 + Y2 = Z next");
  assert.equal(inlineText("a \\* b \\| c \\[d\\] 5\\_000"), "a * b | c [d] 5_000");
  assert.equal(inlineText("Author &amp; Co &lt;x&gt; &#233;&#x20AC;&nbsp;!"), "Author & Co <x> é€ !"); // nbsp is white space
  assert.equal(
    inlineText("<http://example.com/a> and <mailto:x@y.org>"),
    "http://example.com/a and mailto:x@y.org",
  );
  assert.equal(inlineText("text <!-- page 2 --> more"), "text more");
  assert.equal(inlineText('The <lazy> #90 <span class="x">dog</span>'), "The <lazy> #90 dog");
});

test("headings: ATX with closing hashes, setext, HTML; thematic breaks are not headings", () => {
  const s = readStructure(
    [
      "# Title #",
      "",
      "Para",
      "",
      "###### Deep **bold**",
      "#no-space is text",
      "Under equals",
      "===",
      "",
      "Under dashes",
      "---",
      "",
      "---",
      "",
      "<h3>Html <em>heading</em></h3>",
      "####### seven is text",
    ].join("\n"),
  );
  assert.deepEqual(
    s.headings.map((h) => [h.level, h.text]),
    [
      [1, "Title"],
      [6, "Deep bold"],
      [1, "#no-space is text Under equals"],
      [2, "Under dashes"],
      [3, "Html heading"],
    ],
  );
  assert.equal(s.headings[1].key, "deep bold");
  // Section numbers are not part of a heading's key (pandoc does not write Word's heading numbers).
  assert.deepEqual(
    readStructure("# 1 Introduction\n\n## 1.10.2. Scope\n\n## 2024 report\n\n## 3.5%").headings.map(
      (h) => h.key,
    ),
    ["introduction", "scope", "2024 report", "3.5"], // numbers of up to 3 digits a level: a year stays
  );
  assert.ok(s.text.includes("####### seven is text"));
});

test("lists: our 2-space nesting and pandoc's 4-space style with empty outer items", () => {
  const ours = readStructure(
    [
      "- one",
      "- two",
      "  - two.a",
      "    - two.a.i",
      "  - two.b",
      "- three",
      "",
      "1. first",
      "2. second",
    ].join("\n"),
  );
  assert.deepEqual(
    ours.listItems.map((i) => [i.level, i.ordered, i.text]),
    [
      [1, false, "one"],
      [1, false, "two"],
      [2, false, "two.a"],
      [3, false, "two.a.i"],
      [2, false, "two.b"],
      [1, false, "three"],
      [1, true, "first"],
      [1, true, "second"],
    ],
  );
  const pandoc = readStructure(
    [
      "1.  numbered list 1",
      "2.  numbered list 2",
      "",
      "-   -   bullet list 2.1",
      "",
      "    -   bullet list 2.2",
      "",
      "        -   bullet list 2.2.1",
      "",
      "    -   bullet list 2.3",
      "",
      "-   numbered list 3",
      "",
      "    -   -   bullet list 3.0.1",
      "",
      "1)  Number bullet 1",
      "",
      "2)  **Phase 2** (Micro-Level) cleans up",
      "    the small details",
      "",
      "    A second paragraph of the item.",
      "",
      "After the list.",
    ].join("\n"),
  );
  assert.deepEqual(
    pandoc.listItems.map((i) => [i.level, i.ordered, i.text]),
    [
      [1, true, "numbered list 1"],
      [1, true, "numbered list 2"],
      [2, false, "bullet list 2.1"],
      [2, false, "bullet list 2.2"],
      [3, false, "bullet list 2.2.1"],
      [2, false, "bullet list 2.3"],
      [1, false, "numbered list 3"],
      [3, false, "bullet list 3.0.1"],
      [1, true, "Number bullet 1"],
      [1, true, "Phase 2 (Micro-Level) cleans up the small details"],
    ],
  );
  assert.match(pandoc.text, /A second paragraph of the item\.\nAfter the list\./);
  // Emphasis at the start of a line is not a marker; a lone "-" under a paragraph is a setext heading.
  const s = readStructure("*emphasis* here\n\n**bold** there\n\n-5 degrees");
  assert.equal(s.listItems.length, 0);
});

test("pipe tables: outer pipes optional, escaped pipes, code spans, alignment rows, empty cells", () => {
  assert.deepEqual(splitPipeRow("| a | b \\| c | `x|y` |"), ["a", "b \\| c", "`x|y`"]);
  assert.deepEqual(splitPipeRow("a | b"), ["a", "b"]);
  const s = readStructure(
    [
      "Before",
      "",
      "| Row 1 Col 1 | Row 1 Col 2 |",
      "|:------------|------------:|",
      "| **Row 2** | a \\| b |",
      "|   | <br>x |",
      "Not | a table row after all", // still has a pipe: GFM keeps it in the table
      "",
      "a | b",
      "--- | ---",
      "1 | 2",
      "",
      "Single | pipe",
      "---",
    ].join("\n"),
  );
  assert.equal(s.tables.length, 2);
  assert.deepEqual(
    s.tables[0].map((row) => row.map((c) => c.text)),
    [
      ["Row 1 Col 1", "Row 1 Col 2"],
      ["Row 2", "a | b"],
      ["", "x"],
      ["Not", "a table row after all"],
    ],
  );
  assert.deepEqual(s.tableCells, [
    "Row 1 Col 1",
    "Row 1 Col 2",
    "Row 2",
    "a | b",
    "x",
    "Not",
    "a table row after all",
    "a",
    "b",
    "1",
    "2",
  ]);
  // A delimiter row whose cell count differs from the row above is no table (here: a setext heading).
  assert.deepEqual(
    s.headings.map((h) => h.text),
    ["Single | pipe"],
  );
});

test("HTML tables: pandoc's multi-line form, spans, <p> and <br> inside cells, nested tables", () => {
  const html = [
    "<table>",
    '<colgroup><col style="width: 50%" /><col style="width: 50%" /></colgroup>',
    '<thead><tr class="header"><th>Feature</th><th>Action &amp; more</th></tr></thead>',
    "<tbody>",
    '<tr class="odd">',
    '<td rowspan="2">Document <strong>Clause</strong></td>',
    "<td><p>Reorganize:</p>",
    "<p>• Foreword</p><br />",
    '<a href="https://x/#a"><u>Part 2</u></a></td>',
    "</tr>",
    "<tr><td colspan='1'>inner:<table><tr><td>n1</td><td>n2</td></tr></table></td></tr>",
    "</tbody>",
    "</table>",
  ].join("\n");
  const tables = parseHtmlTables(html);
  assert.equal(tables.length, 2);
  assert.deepEqual(tables[0], [
    [
      { text: "Feature", rowSpan: 1, columnSpan: 1 },
      { text: "Action & more", rowSpan: 1, columnSpan: 1 },
    ],
    [
      { text: "Document Clause", rowSpan: 2, columnSpan: 1 },
      { text: "Reorganize: • Foreword Part 2", rowSpan: 1, columnSpan: 1 },
    ],
    [{ text: "inner:", rowSpan: 1, columnSpan: 1 }],
  ]);
  assert.deepEqual(
    tables[1].map((row) => row.map((c) => c.text)),
    [["n1", "n2"]],
  );
  const s = readStructure(`Intro\n\n${html}\n\nOutro`);
  assert.equal(s.tables.length, 2);
  assert.equal(s.tableCells.length, 7);
  assert.equal(s.text.split("\n")[0], "Intro");
  assert.equal(s.text.split("\n").at(-1), "Outro");
  // Unclosed cells and tables at the end of the input still count.
  assert.deepEqual(parseHtmlTables("<table><tr><td>a<td>b"), [
    [
      [
        { text: "a", rowSpan: 1, columnSpan: 1 },
        { text: "b", rowSpan: 1, columnSpan: 1 },
      ],
    ],
  ]);
});

test("text: code fences kept, comments, images, footnote definitions; quote markers stripped", () => {
  const text = markdownToText(
    [
      "<!-- page 1 -->",
      "# Head",
      "",
      "![image](x.png)",
      "",
      "```js",
      "const a = 1; // # not a heading",
      "```",
      "",
      "> quoted *line*",
      "",
      "Footnote here[^1]",
      "",
      "[^1]: The note.",
    ].join("\n"),
  );
  assert.equal(text, "Head\nconst a = 1; // # not a heading\nquoted line\nFootnote here\nThe note.");
});

test("withoutSectionNumber: only a leading number followed by text", () => {
  assert.equal(withoutSectionNumber("1.1 License notices"), "License notices");
  assert.equal(withoutSectionNumber("12. Annex"), "Annex");
  assert.equal(withoutSectionNumber("42"), "42");
  assert.equal(withoutSectionNumber("Version 2 notes"), "Version 2 notes");
});

test("wordEditDistance: word Levenshtein normalised by the longer sequence", () => {
  assert.deepEqual(wordEditDistance([], []), { distance: 0, normalised: 0 });
  assert.deepEqual(wordEditDistance(["a"], []), { distance: 1, normalised: 1 });
  assert.deepEqual(wordEditDistance(words("the quick brown fox"), words("the quick brown fox")), {
    distance: 0,
    normalised: 0,
  });
  // substitute quick→slow, delete brown: 2 edits over 4 words
  assert.deepEqual(wordEditDistance(words("the quick brown fox"), words("the slow fox")), {
    distance: 2,
    normalised: 0.5,
  });
  // order matters: a swap of two words costs 2
  assert.equal(wordEditDistance(["a", "b", "c"], ["b", "a", "c"]).distance, 2);
  assert.equal(wordEditDistance(["x", "y"], ["a", "x", "b", "y", "c"]).distance, 3);
});

test("multisetF1: by key, repetitions count, empty sides", () => {
  const r = multisetF1(["Intro", "Methods", "Methods", "Results"], ["intro:", "**Methods**", "Extra"]);
  assert.equal(r.matched, 2);
  assert.equal(r.truth, 4);
  assert.equal(r.found, 3);
  assert.equal(r.precision, 2 / 3);
  assert.equal(r.recall, 0.5);
  assert.ok(Math.abs(r.f1 - 4 / 7) < 1e-12);
  assert.deepEqual(r.missing, ["methods", "results"]);
  assert.deepEqual(r.extra, ["extra"]);
  assert.equal(multisetF1([], []).f1, null);
  assert.equal(multisetF1(["a"], []).f1, 0);
  assert.equal(multisetF1([], ["a"]).recall, null);
  assert.equal(multisetF1(["", "  "], ["**"]).f1, null);
  assert.equal(pooledF1([multisetF1(["a", "b"], ["a"]), multisetF1(["c"], ["c", "d"])]), 4 / 6);
  assert.equal(pooledF1([multisetF1([], [])]), null);
});

test("headingLevelAgreement: share of matched headings with the same level", () => {
  const truth = readStructure("# A\n\n## B\n\n## C\n\n# D").headings;
  const found = readStructure("# A\n\n### B\n\n## C\n\n## E").headings;
  assert.equal(headingLevelAgreement(truth, found), 2 / 3);
  assert.equal(headingLevelAgreement(truth, []), null);
});
