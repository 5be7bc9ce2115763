/** A horizontal extent of text on one row: a word or a piece of a cell. */
export interface Span {
  x0: number;
  x1: number;
}

/** What makes a vertical strip of a column a boundary between two columns of text. */
export interface StripRule {
  /** Narrower strips (points) are the space between words. */
  minWidth: number;
  /** Rows whose text may run across the strip: this share of the rows at most. */
  maxAcrossShare: number;
  /** Rows with text on both sides of the strip: this share of the rows at least… */
  minBesideShare: number;
  /** …and this many rows at least. */
  minBesideRows: number;
}

/** Coverage is sampled on a grid of this step (points). */
const stepPt = 0.5;

/**
 * The middles of the vertical strips between `left` and `right` that the rows' text keeps clear of,
 * as `rule` asks, left to right. Each row is the spans of one row's text within the column.
 */
export function clearStrips(rows: Span[][], left: number, right: number, rule: StripRule): number[] {
  if (rows.length < rule.minBesideRows) return [];
  const steps = Math.max(0, Math.floor((right - left) / stepPt));
  const across = rule.maxAcrossShare * rows.length;
  const coverage = Array.from({ length: steps }, (_, step) => {
    const x = left + step * stepPt;
    return rows.filter((spans) => spans.some((span) => span.x0 < x && span.x1 > x)).length;
  });
  const strips: number[] = [];
  for (let start = 0; start < steps; ) {
    if ((coverage[start] ?? 0) > across) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < steps && (coverage[end] ?? 0) <= across) end += 1;
    const x0 = left + start * stepPt;
    const x1 = left + end * stepPt;
    // Judged at the strip's middle: its ends are only as exact as the sampling step.
    const middle = (x0 + x1) / 2;
    const beside = rows.filter(
      (spans) => spans.some((span) => span.x1 <= middle) && spans.some((span) => span.x0 >= middle),
    ).length;
    if (x1 - x0 >= rule.minWidth && beside >= Math.max(rule.minBesideRows, rule.minBesideShare * rows.length))
      strips.push(middle);
    start = end;
  }
  return strips;
}
