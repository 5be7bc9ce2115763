import type { Rulings, Segment } from "./rulings.js";

/** Collinear segments closer than this (points) are one ruling. */
const collinearTolerance = 1.5;
/** Gaps along a ruling shorter than this (points) are bridged. */
const joinTolerance = 3;

function mergeAxis(segments: Segment[], horizontal: boolean): Segment[] {
  const pos = (s: Segment) => (horizontal ? s.y0 : s.x0);
  const start = (s: Segment) => (horizontal ? s.x0 : s.y0);
  const end = (s: Segment) => (horizontal ? s.x1 : s.y1);
  const sorted = [...segments].sort((a, b) => pos(a) - pos(b));
  const bands: Segment[][] = [];
  for (const s of sorted) {
    const band = bands[bands.length - 1];
    const last = band?.[band.length - 1];
    if (band && last && pos(s) - pos(last) <= collinearTolerance) band.push(s);
    else bands.push([s]);
  }
  const out: Segment[] = [];
  for (const band of bands) {
    const at = band.reduce((sum, s) => sum + pos(s), 0) / band.length;
    band.sort((a, b) => start(a) - start(b));
    let lo = Number.NaN;
    let hi = Number.NaN;
    const emit = () => {
      if (Number.isNaN(lo)) return;
      out.push(horizontal ? { x0: lo, y0: at, x1: hi, y1: at } : { x0: at, y0: lo, x1: at, y1: hi });
    };
    for (const s of band) {
      if (!Number.isNaN(hi) && start(s) <= hi + joinTolerance) {
        hi = Math.max(hi, end(s));
        continue;
      }
      emit();
      lo = start(s);
      hi = end(s);
    }
    emit();
  }
  return out;
}

/** Merges collinear, touching or overlapping segments into whole rulings. */
export function mergeRulings(rulings: Rulings): Rulings {
  return {
    horizontal: mergeAxis(rulings.horizontal, true),
    vertical: mergeAxis(rulings.vertical, false),
  };
}

/** How far short of a horizontal rule a vertical ruling may stop and still meet it (points). */
const ruleGap = 5;

/**
 * Vertical rulings carried on to the horizontal rules they stop just short of. booktabs leaves a
 * few points of space around its rules, so a column rule ("ccc|cc") is drawn in pieces that never
 * touch the top, middle and bottom rules, and the header and body would be two frames.
 */
export function bridgeRuleGaps(rulings: Rulings): Rulings {
  const { horizontal } = rulings;
  // The rule nearest the end: two framed boxes stacked close keep their own frames.
  const nearestRule = (x: number, end: number, to: number) => {
    let best: Segment | undefined;
    for (const h of horizontal) {
      if (h.x0 > x || h.x1 < x || (h.y0 - end) * (to - end) < 0 || Math.abs(h.y0 - end) > Math.abs(to - end))
        continue;
      if (!best || Math.abs(h.y0 - end) < Math.abs(best.y0 - end)) best = h;
    }
    return best?.y0;
  };
  const vertical = rulings.vertical.map((v) => ({
    ...v,
    y0: nearestRule(v.x0, v.y0, v.y0 - ruleGap) ?? v.y0,
    y1: nearestRule(v.x0, v.y1, v.y1 + ruleGap) ?? v.y1,
  }));
  return mergeRulings({ horizontal, vertical });
}

/** Whether a horizontal and a vertical ruling cross or touch. */
export function crosses(h: Segment, v: Segment, tolerance: number): boolean {
  return (
    v.x0 >= h.x0 - tolerance &&
    v.x0 <= h.x1 + tolerance &&
    h.y0 >= v.y0 - tolerance &&
    h.y0 <= v.y1 + tolerance
  );
}

/** Groups rulings into connected networks: each is a candidate table frame. */
export function rulingNetworks(rulings: Rulings, tolerance: number): Rulings[] {
  const { horizontal, vertical } = rulings;
  const parent = [...horizontal, ...vertical].map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] ?? root;
    parent[i] = root;
    return root;
  };
  const touched = new Set<number>();
  horizontal.forEach((h, i) => {
    vertical.forEach((v, j) => {
      if (!crosses(h, v, tolerance)) return;
      const k = horizontal.length + j;
      parent[find(i)] = find(k);
      touched.add(i).add(k);
    });
  });
  const groups = new Map<number, Rulings>();
  for (const i of touched) {
    const root = find(i);
    let group = groups.get(root);
    if (!group) {
      group = { horizontal: [], vertical: [] };
      groups.set(root, group);
    }
    if (i < horizontal.length) group.horizontal.push(horizontal[i] as Segment);
    else group.vertical.push(vertical[i - horizontal.length] as Segment);
  }
  return [...groups.values()];
}
