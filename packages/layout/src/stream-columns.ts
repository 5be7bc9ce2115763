import { clearStrips, type StripRule } from "./clear-strips.js";
import { isBlank } from "./glyphs.js";
import { wordsOf } from "./table-build.js";
import type { TextRow } from "./text-rows.js";

/** From this many multi-cell rows on, one of the first few may cross a column gap however few the rows. */
const spanToleranceRows = 5;
/** Fewer multi-cell rows than this cross no gap anywhere, whatever the caller allows. */
const minRowsForSpans = 4;
/** The rows a spanning header may be among: the first this many multi-cell rows. */
const headerRows = 3;

/**
 * Column edges of a borderless table: x positions where whitespace runs down (nearly) every
 * multi-cell row. Returns undefined when fewer than two columns hold text in three rows. A header
 * row spanning columns at the top of a small table may cross a gap, but only to split the columns
 * of a table found without it: it never makes text a table. A caller that knows the rows are a table
 * (its rules say so) lets `spanningRows` of them cross a gap anywhere.
 */
export function streamColumns(run: TextRow[], bodySize: number, spanningRows = 0): number[] | undefined {
  const multi = run.filter((r) => r.fragments.length >= 2);
  const xs = run.flatMap((r) => r.fragments.flatMap((f) => [f.box.x0, f.box.x1]));
  const left = Math.floor(Math.min(...xs));
  const right = Math.ceil(Math.max(...xs));
  const width = right - left + 1;
  if (!Number.isFinite(width) || width <= 0) return undefined;
  // How many multi-cell rows put ink over each x (1 pt bins), and whether one of the first few
  // (where a header spanning columns sits) does.
  const cover = new Array<number>(width).fill(0);
  const headerCover = new Uint8Array(width);
  multi.forEach((row, i) => {
    const seen = new Uint8Array(width);
    for (const f of row.fragments)
      for (let x = Math.floor(f.box.x0) - left; x < Math.ceil(f.box.x1) - left; x++) seen[x] = 1;
    for (let x = 0; x < width; x++) {
      cover[x] = (cover[x] ?? 0) + (seen[x] ?? 0);
      if (i < headerRows && seen[x]) headerCover[x] = 1;
    }
  });
  // A tenth of the rows (or `spanningRows`, from four rows on) may cross a gap (headers spanning
  // columns); with `headerSpans`, one of the first few rows more.
  const allowed = Math.max(
    multi.length >= minRowsForSpans ? spanningRows : 0,
    Math.floor(multi.length * 0.1),
  );
  const minGap = Math.max(3, bodySize * 0.5);
  // The middle of the widest stretch of [from, to) that the fewest rows cross: a gap that rows may
  // cross is cut where they do not (past the end of a long label), not through them.
  const leastCrossed = (from: number, to: number): { at: number; crossed: boolean } => {
    const least = Math.min(...cover.slice(from, to));
    let best = { start: from, end: from };
    for (let x = from; x < to; ) {
      if ((cover[x] ?? 0) !== least) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < to && (cover[x] ?? 0) === least) x += 1;
      if (x - start > best.end - best.start) best = { start, end: x };
    }
    return { at: (best.start + best.end) / 2, crossed: least > 0 };
  };
  const edgesWith = (headerSpans: boolean): number[] | undefined => {
    const edges = [left];
    // Edges at gaps some row crosses: between a table's rules, the ones that may go.
    const crossed = new Set<number>();
    let gapStart = -1;
    for (let x = 0; x <= width; x++) {
      const crossing = (cover[x] ?? 0) - (headerSpans ? (headerCover[x] ?? 0) : 0);
      const clear = x < width && crossing <= allowed;
      if (clear && gapStart < 0) gapStart = x;
      if (!clear && gapStart >= 0) {
        if (x - gapStart >= minGap && gapStart > 0 && x < width) {
          const gap = leastCrossed(gapStart, x);
          edges.push(left + gap.at);
          if (gap.crossed) crossed.add(left + gap.at);
        }
        gapStart = -1;
      }
    }
    edges.push(right);
    if (edges.length < 3) return undefined;
    // Every column must hold text in at least two rows, or it is noise. Between a table's rules, a
    // gap that a row crosses (a header wider than its figures) is dropped instead: the rules say the
    // rows are a table, and the crossing row says the gap may be none.
    const filled = (a: number, b: number) =>
      run.filter((r) =>
        r.fragments.some((f) => (f.box.x0 + f.box.x1) / 2 > a && (f.box.x0 + f.box.x1) / 2 < b),
      ).length;
    for (let i = 0; i < edges.length - 1; ) {
      if (filled(edges[i] ?? 0, edges[i + 1] ?? 0) >= 2) {
        i += 1;
        continue;
      }
      const inner = [i, i + 1].filter((k) => k > 0 && k < edges.length - 1);
      const droppable = inner.find((k) => crossed.has(edges[k] ?? 0));
      if (spanningRows === 0 || droppable === undefined) return undefined;
      edges.splice(droppable, 1);
      if (edges.length < 3) return undefined;
      i = 0;
    }
    return edges;
  };
  const plain = edgesWith(false);
  if (!plain) return undefined;
  return (multi.length >= spanToleranceRows && edgesWith(true)) || plain;
}

/**
 * A gap between tightly set columns: at least 2 pt wide; the words of at most 10 % of the column's rows
 * cross it, and at least 60 % (three rows at least) have words on both sides.
 */
const tightColumnGap: StripRule = { minWidth: 2, maxAcrossShare: 0.1, minBesideShare: 0.6, minBesideRows: 3 };

/**
 * Splits a borderless table's columns where the words of nearly every row keep clear of one strip
 * and most rows have words on both sides: tightly set figures ("1,144 193.5") whose gap is narrower
 * than the one that separates fragments, but that line up down the column as columns do. Words of
 * one cell of prose do not line up like that.
 */
export function splitTightColumns(run: TextRow[], columnEdges: number[]): number[] {
  const words = run.map((row) =>
    wordsOf(row.fragments.flatMap((f) => f.glyphs))
      .map((word) => word.filter((g) => !isBlank(g)))
      .filter((word) => word.length > 0)
      .map((word) => ({
        x0: Math.min(...word.map((g) => g.box.x0)),
        x1: Math.max(...word.map((g) => g.box.x1)),
      })),
  );
  const out = [columnEdges[0] ?? 0];
  for (let col = 0; col < columnEdges.length - 1; col++) {
    const left = columnEdges[col] ?? 0;
    const right = columnEdges[col + 1] ?? 0;
    const rows = words
      .map((row) => row.filter((w) => (w.x0 + w.x1) / 2 > left && (w.x0 + w.x1) / 2 < right))
      .filter((row) => row.length > 0);
    out.push(...clearStrips(rows, left, right, tightColumnGap), right);
  }
  return out;
}
