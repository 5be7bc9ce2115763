import type { Box, Table } from "../src/index.js";

export interface Score {
  precision: number;
  recall: number;
  f1: number;
}

/** Cell text compared without whitespace or case: line breaks inside cells differ between tools. */
export function normaliseCell(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, "").toLowerCase();
}

function multiset(texts: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of texts.map(normaliseCell)) if (t !== "") out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

export function scoreCells(detected: string[], truth: string[]): Score {
  const d = multiset(detected);
  const t = multiset(truth);
  let matched = 0;
  for (const [text, n] of t) matched += Math.min(n, d.get(text) ?? 0);
  const dn = [...d.values()].reduce((s, v) => s + v, 0);
  const tn = [...t.values()].reduce((s, v) => s + v, 0);
  const precision = dn ? matched / dn : 0;
  const recall = tn ? matched / tn : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function centreIn(b: Box, area: Box): boolean {
  const x = (b.x0 + b.x1) / 2;
  const y = (b.y0 + b.y1) / 2;
  return x >= area.x0 && x <= area.x1 && y >= area.y0 && y <= area.y1;
}

/**
 * Cell-content F1, the measure of the ICDAR 2013 competition's "cell content" view and of
 * camelot's and tabula's comparisons with expected CSVs: the truth's non-empty cells and the
 * detection's, as multisets of normalised texts. A cell split or merged wrongly, a missed or an
 * invented cell each cost a match. The detection is the page's best-scoring table (or all of its
 * tables together, for a truth CSV that holds two tables), keeping only cells inside the truth's
 * area when the corpus restricts it.
 */
export function bestScore(tables: Table[], truth: string[][], area: Box | undefined): Score {
  const cellsOf = (ts: Table[]) =>
    ts.flatMap((t) => t.cells.filter((c) => !area || centreIn(c.box, area)).map((c) => c.text));
  const truthCells = truth.flat();
  const candidates = [...tables.map((t) => [t]), tables];
  let best: Score = { precision: 0, recall: 0, f1: 0 };
  for (const candidate of candidates) {
    const score = scoreCells(cellsOf(candidate), truthCells);
    if (score.f1 > best.f1) best = score;
  }
  return best;
}
