import { readFileSync } from "node:fs";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument, type Table, tablesOf } from "../src/index.js";
import { hasNoRulings, type IcdarTable, icdarTables } from "./icdar2013.js";
import { checkingHalf, tuningHalf } from "./icdar2013-split.js";
import { bestScore, type Score, scoreCells } from "./table-score.js";

/**
 * Tables on the whole ICDAR 2013 development set of the corpus (64 documents, 146 tables), as the
 * tables issue measures them, for each half of the fixed split and for both together:
 * - cell-content F1 per table (table-score.ts; a table over two pages scores its pages' cells together),
 *   then the mean, for every table and for the tables with no ruling line;
 * - detection: a found table matches a truth table (on one page) when it holds at least half its cells;
 *   precision over every table found on the documents' pages, recall over the truth's.
 */
const mupdf = await loadMupdf();

interface Scored {
  table: IcdarTable;
  noRulings: boolean;
  score: Score;
}

interface Detection {
  found: number;
  foundMatching: number;
  truth: number;
  truthFound: number;
}

/** A found table holds a truth region when it has at least this share of the region's cells. */
const matchShare = 0.5;

function measureDocument(document: string): { scored: Scored[]; detection: Detection } {
  const doc = mupdf.Document.openDocument(
    readFileSync(corpusPath(`tables/icdar2013_${document}.pdf`)),
    "application/pdf",
  );
  const pageHeight = (page: number) => {
    const [, y0, , y1] = doc.loadPage(page).getBounds();
    return y1 - y0;
  };
  const truth = icdarTables(document, pageHeight);
  const pages = analyzeDocument(doc, { images: false }).pages;
  const found: Table[][] = pages.map((layout) => tablesOf(layout));
  const detection: Detection = { found: 0, foundMatching: 0, truth: 0, truthFound: 0 };
  const regions = truth.flatMap((table) => table.regions);
  const holds = (table: Table, cells: string[]) =>
    scoreCells(
      table.cells.map((cell) => cell.text),
      cells,
    ).recall >= matchShare;
  for (const [page, tables] of found.entries()) {
    const here = regions.filter((region) => region.page === page);
    detection.found += tables.length;
    detection.foundMatching += tables.filter((table) => here.some((r) => holds(table, r.cells))).length;
    detection.truth += here.length;
    detection.truthFound += here.filter((r) => tables.some((table) => holds(table, r.cells))).length;
  }
  const scored = truth.map((table) => {
    // Each page's best detection against that page's cells, weighted by the cells it holds.
    const parts = table.regions.map((region) => ({
      cells: region.cells.length,
      score: bestScore(found[region.page] ?? [], [region.cells], undefined),
    }));
    const total = parts.reduce((sum, part) => sum + part.cells, 0) || 1;
    const weighted = (key: keyof Score) =>
      parts.reduce((sum, part) => sum + part.score[key] * part.cells, 0) / total;
    const noRulings = table.regions.every((region) => hasNoRulings(doc.loadPage(region.page), region.box));
    return {
      table,
      noRulings,
      score: { precision: weighted("precision"), recall: weighted("recall"), f1: weighted("f1") },
    };
  });
  doc.destroy();
  return { scored, detection };
}

interface Summary {
  tables: number;
  f1: number;
  noRulingTables: number;
  noRulingF1: number;
  detectionPrecision: number;
  detectionRecall: number;
}

function summarise(documents: readonly string[], measured: Map<string, ReturnType<typeof measureDocument>>) {
  const scored = documents.flatMap((document) => measured.get(document)?.scored ?? []);
  const detection = documents
    .map((document) => measured.get(document)?.detection)
    .reduce<Detection>(
      (sum, d) => ({
        found: sum.found + (d?.found ?? 0),
        foundMatching: sum.foundMatching + (d?.foundMatching ?? 0),
        truth: sum.truth + (d?.truth ?? 0),
        truthFound: sum.truthFound + (d?.truthFound ?? 0),
      }),
      { found: 0, foundMatching: 0, truth: 0, truthFound: 0 },
    );
  const meanF1 = (rows: Scored[]) =>
    rows.reduce((sum, row) => sum + row.score.f1, 0) / Math.max(1, rows.length);
  const noRulings = scored.filter((row) => row.noRulings);
  return {
    tables: scored.length,
    f1: meanF1(scored),
    noRulingTables: noRulings.length,
    noRulingF1: meanF1(noRulings),
    detectionPrecision: detection.foundMatching / Math.max(1, detection.found),
    detectionRecall: detection.truthFound / Math.max(1, detection.truth),
  } satisfies Summary;
}

describe("ICDAR 2013: every table of the development set, both halves of the split", () => {
  const measured = new Map([...tuningHalf, ...checkingHalf].map((d) => [d, measureDocument(d)]));
  const rows = [...measured.values()].flatMap((m) => m.scored);
  const pct = (value: number) => (value * 100).toFixed(1).padStart(6);
  console.log(
    [
      `${"table".padEnd(18)} ${"rulings".padEnd(8)} ${"P %".padStart(6)} ${"R %".padStart(6)} ${"F1 %".padStart(6)}`,
      ...rows.map(
        ({ table, noRulings, score }) =>
          `${`${table.document} #${table.id}`.padEnd(18)} ${(noRulings ? "none" : "some").padEnd(8)} ${pct(score.precision)} ${pct(score.recall)} ${pct(score.f1)}`,
      ),
    ].join("\n"),
  );
  const halves = {
    all: summarise([...tuningHalf, ...checkingHalf], measured),
    tuning: summarise(tuningHalf, measured),
    checking: summarise(checkingHalf, measured),
  };
  console.log(
    Object.entries(halves)
      .map(
        ([half, s]) =>
          `${half.padEnd(9)} ${s.tables} tables: mean F1 ${pct(s.f1)} % | no rulings: ${s.noRulingTables} tables, mean F1 ${pct(s.noRulingF1)} % | detection P ${pct(s.detectionPrecision)} % R ${pct(s.detectionRecall)} %`,
      )
      .join("\n"),
  );

  it("reads every table of the ground truth, each half holding about half", () => {
    expect(halves.all.tables).toBe(146);
    expect(halves.tuning.tables + halves.checking.tables).toBe(146);
    expect(Math.min(halves.tuning.tables, halves.checking.tables)).toBeGreaterThan(50);
    expect(halves.all.noRulingTables).toBeGreaterThan(10);
  });

  // Today's figures, held against regression; the issue's goals (F1 0.92 over all, 0.88 without rulings,
  // detection 0.9) replace these floors as the detector reaches them, on both halves.
  it.each(["tuning", "checking"] as const)("holds today's figures on the %s half", (half) => {
    const s = halves[half];
    expect(s.f1).toBeGreaterThanOrEqual(0.94);
    expect(s.detectionRecall).toBeGreaterThanOrEqual(0.9);
    expect(s.detectionPrecision).toBeGreaterThanOrEqual(0.75);
    expect(s.noRulingF1).toBeGreaterThanOrEqual(0.75);
  });
});
