import { readFileSync } from "node:fs";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument, type Table, tableToGrid } from "../src/index.js";
import { parseCsv } from "./csv.js";

const mupdf = await loadMupdf();

const tablesByPdf = new Map<string, string[][][]>();

/** The tables of a one-page corpus PDF, each as rows of cell texts (laid out once per file). */
function tablesIn(pdf: string): string[][][] {
  const known = tablesByPdf.get(pdf);
  if (known) return known;
  const doc = mupdf.Document.openDocument(readFileSync(corpusPath(pdf)), "application/pdf");
  const [page] = analyzeDocument(doc, { images: false, pages: [0] }).pages;
  const tables = (page?.blocks.filter((b): b is Table => b.kind === "table") ?? []).map(tableToGrid);
  tablesByPdf.set(pdf, tables);
  return tables;
}

const holding = (tables: string[][][], text: string) =>
  tables.filter((rows) => rows.some((row) => row.some((cell) => cell.includes(text))));

/** pdf-parse-bench's truth for one table: its CSV's rows, blank lines left out. */
const truthOf = (csv: string) =>
  parseCsv(readFileSync(corpusPath(`structure/${csv}`), "utf8")).filter((row) => row.some((c) => c !== ""));

describe("tables ruled across only (booktabs, \\hline)", () => {
  // Tables whose rules the whitespace pass missed or cut, each read whole: the truth's rows exactly.
  it.each([
    [
      "pdfparse_052",
      "table3",
      "two rows between a \\toprule and a \\bottomrule, too few rows for whitespace alone",
    ],
    ["pdfparse_091", "table2", "nine rows beside a ruled table in the other column"],
    ["pdfparse_048", "table7", "rows of long labels and figures"],
  ])("%s %s: %s", (document, table) => {
    const truth = truthOf(`${document}.${table}.csv`);
    expect(tablesIn(`structure/${document}.pdf`)).toContainEqual(truth);
  });

  it("cut a gap rows may cross where none does: past a long label, not through it", () => {
    // pdfparse_058, table 1: "Coefficient difference test p-value" reaches into the blank before the
    // figures, and "0.078" spans both value columns.
    const [table] = holding(tablesIn("structure/pdfparse_058.pdf"), "Observations");
    expect(table).toContainEqual(["Coefficient difference test p-value", "0.078", ""]);
    expect(table).toContainEqual(["First-stage F-statistic", "246.75", "131.59"]);
  });

  it("keep exponents and indices on their row", () => {
    // pdfparse_058, table 4: "Imax( W cm−2)" and "2 × 10¹³", their scripts once rows of their own.
    expect(tablesIn("structure/pdfparse_058.pdf")).toContainEqual(truthOf("pdfparse_058.table4.csv"));
  });

  it("take the header row set above a lone \\midrule, and every row down to the \\bottomrule", () => {
    // pdf-parse-bench's pdfparse_000, table 2: "Research Area & Count \\ \midrule … \bottomrule".
    const [table, ...others] = holding(tablesIn("structure/pdfparse_000.pdf"), "Research Area");
    expect(others).toEqual([]);
    expect(table?.[0]).toEqual(["Research Area", "Count"]);
    expect(table).toContainEqual(["Life sciences", "264"]);
    expect(table?.at(-1)).toEqual(["Social work", "1"]);
    expect(table).toHaveLength(15);
  });

  it("keep the prose between two tables of one column's width out of both", () => {
    // pdfparse_016's left column: a table, two paragraphs as wide as its rules, then another table.
    const tables = tablesIn("structure/pdfparse_016.pdf");
    expect(holding(tables, "Animal dream")).toEqual([]);
    expect(holding(tables, "Forget heart")).toEqual([]);
    expect(holding(tables, "ESU Type")).toHaveLength(1);
    expect(holding(tables, "MAdaPT-FOBLO")).toHaveLength(1);
  });

  it("end a table at its last rule when the next table's rules, of the same width, follow with nothing between", () => {
    // pdfparse_016's right column: "Model group …" ends with a \bottomrule; "Model … CF-TVP-VAR-SV" starts
    // with a \toprule of the same ends some way below.
    const tables = tablesIn("structure/pdfparse_016.pdf");
    const [first] = holding(tables, "Model group");
    const [second] = holding(tables, "CF-TVP-VAR-SV");
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
  });
});

describe("LaTeX tables' other shapes", () => {
  it("split a ruled frame's unruled body into its rows when one value takes two lines", () => {
    // pdfparse_091, table 8: a frame, a rule under the header, one upright rule; "Codebook size" has two values.
    const [table] = holding(tablesIn("structure/pdfparse_091.pdf"), "Hyperparameter");
    expect(table).toContainEqual(["Embedding dimension", "128"]);
    expect(table).toContainEqual(["Codebook size", "8 192 (kin.)"]);
    expect(table).toContainEqual(["", "32 768 (ext.)"]);
    expect(table).toContainEqual(["Replacement frequency", "500 steps"]);
    expect(table).toHaveLength(14);
  });

  it("keep a cell's indices on their letters", () => {
    // pdfparse_061, table 1: G with the subscripts P and K.
    expect(tablesIn("structure/pdfparse_061.pdf")).toContainEqual(truthOf("pdfparse_061.table1.csv"));
  });

  it("keep a figure's power of ten on its line, though the piece with the exponent sorts above it", () => {
    // pdfparse_058, table 3: "3.42 × 10⁻¹", the "10⁻¹" a piece of its own, its exponent raised.
    const [table] = holding(tablesIn("structure/pdfparse_058.pdf"), "RMSE");
    expect(table).toContainEqual(["2", "3.42 × 10−1", "1.83 × 10−1", "1.70 × 10−1"]);
  });

  it("join a column rule drawn in pieces between booktabs' rules into one frame", () => {
    // pdfparse_017, table 1: "ccc|cc" under \toprule, \midrule and \bottomrule; the upright rule
    // stops a few points short of each, so the header and the body were two frames of one row each.
    const [table] = holding(tablesIn("structure/pdfparse_017.pdf"), "119.3");
    expect(table).toHaveLength(9);
    expect(table?.[0]).toEqual(["Model Variations", "", "", "FGD ↓", expect.any(String)]);
    expect(table?.slice(2).map((row) => row[3])).toEqual([
      "119.3",
      "97.2",
      "89.4",
      "96.5",
      "79.7",
      "72.5",
      "70.9",
    ]);
  });

  it("set a group's name over its columns' labels as two rows, though one ruled cell holds both", () => {
    // pdfparse_016, table 4: "Number of Features" over "2 3 4 5 6", in one cell beside "Houses".
    expect(tablesIn("structure/pdfparse_016.pdf")).toContainEqual(truthOf("pdfparse_016.table4.csv"));
  });

  it("split a ruled band of two lines of figures into two rows", () => {
    // pdfparse_014, table 4: VGGT and DINOv3 share one ruled band, each value column two figures.
    expect(tablesIn("structure/pdfparse_014.pdf")).toContainEqual(truthOf("pdfparse_014.table4.csv"));
  });

  it("split columns under a value that spans two of them, between a table's rules", () => {
    // pdfparse_001, table 5: the last row, "Pearson Correlation: …", spans the three columns.
    const [table] = holding(tablesIn("structure/pdfparse_001.pdf"), "Text Encoder");
    expect(table?.slice(0, 5)).toEqual(truthOf("pdfparse_001.table5.csv").slice(0, 5));
  });
});
