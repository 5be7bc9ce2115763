import type { Glyph } from "./glyphs.js";
import type { LatticeGrid } from "./lattice.js";

/**
 * The text lines of a band of a ruled grid and of its cells, as the row split reads them: which
 * lines there are, and whether two of them are rows or one cell's wrapped text.
 */

type Area = LatticeGrid["areas"][number];

/** True when two line centres are the same line: within half the band's median glyph size. */
export function near(a: number, b: number, band: Glyph[]): boolean {
  const sizes = band.map((g) => g.size).sort((x, y) => x - y);
  return Math.abs(a - b) < 0.5 * (sizes[Math.floor(sizes.length / 2)] ?? 10);
}

/** The glyphs of each text line in a band, top to bottom; a line of exponents or indices is none. */
export function textLines(glyphs: Glyph[]): Glyph[][] {
  const sorted = [...glyphs].sort((a, b) => a.baseline - b.baseline);
  const groups: Glyph[][] = [];
  for (const g of sorted) {
    const group = groups[groups.length - 1];
    const first = group?.[0];
    if (group && first && g.baseline - first.baseline < 0.5 * Math.min(g.size, first.size)) group.push(g);
    else groups.push([g]);
  }
  return groups.filter((group, i) => !scriptsOf(group, groups[i - 1]) && !scriptsOf(group, groups[i + 1]));
}

/**
 * Whether a line overlaps a neighbouring line and each of its glyphs sits beside a larger one of
 * it: its exponents or indices (not a smaller cell's line beside a larger one, or under its own).
 */
function scriptsOf(line: Glyph[], neighbour: Glyph[] | undefined): boolean {
  if (!neighbour) return false;
  const besideLarger = (g: Glyph) =>
    neighbour.some(
      (h) => g.size <= 0.85 * h.size && h.box.x0 - g.box.x1 < h.size && g.box.x0 - h.box.x1 < h.size,
    );
  if (!line.every(besideLarger)) return false;
  const top = Math.min(...line.map((g) => g.box.y0));
  const bottom = Math.max(...line.map((g) => g.box.y1));
  const shared =
    Math.min(bottom, Math.max(...neighbour.map((g) => g.box.y1))) -
    Math.max(top, Math.min(...neighbour.map((g) => g.box.y0)));
  return shared >= 0.4 * (bottom - top);
}

/** Mean y of the glyph centres of each text line in a band, top to bottom. */
export function lineCentres(glyphs: Glyph[]): number[] {
  return textLines(glyphs).map((gs) => gs.reduce((s, g) => s + (g.box.y0 + g.box.y1) / 2, 0) / gs.length);
}

/** How much of its cell's width a line fills to have wrapped there. */
const fullLineShare = 0.8;

/**
 * Whether some cell's text wraps from the line at `above` onto the one at `below`: the upper line
 * fills its cell and the lower one goes on in lower case, and no cell has a figure on each (values
 * one per row beside labels that happen to fill their column). Then the two lines are one row.
 */
export function wrapsOn(
  linesByArea: Map<Area, Glyph[][]>,
  columnEdges: number[],
  above: number,
  below: number,
  band: Glyph[],
): boolean {
  const centre = (line: Glyph[]) => line.reduce((s, g) => s + (g.box.y0 + g.box.y1) / 2, 0) / line.length;
  const pairs = [...linesByArea].flatMap(([area, lines]) => {
    const upper = lines.find((line) => near(centre(line), above, band));
    const lower = lines.find((line) => near(centre(line), below, band));
    return upper && lower ? [{ area, upper, lower }] : [];
  });
  if (pairs.some(({ upper, lower }) => isFigure(upper) && isFigure(lower))) return false;
  return pairs.some(({ area, upper, lower }) => {
    const first = [...lower].sort((a, b) => a.box.x0 - b.box.x0)[0];
    if (!first || !/\p{Ll}/u.test(first.c)) return false;
    const left = columnEdges[area.col] ?? 0;
    const right = columnEdges[area.col + area.colSpan] ?? 0;
    return Math.max(...upper.map((g) => g.box.x1)) >= left + fullLineShare * (right - left);
  });
}

/** A figure, signed or in brackets: "1.25", "−22.1", "(0.009)", "10 000". */
const figure = /^[-+−–(]?\d[\d.,\s%)]*$/;

/** Whether a line's text is a figure. */
function isFigure(line: Glyph[]): boolean {
  return figure.test(
    [...line]
      .sort((a, b) => a.box.x0 - b.box.x0)
      .map((g) => g.c)
      .join("")
      .trim(),
  );
}

/** Whether every line of a cell is a figure. */
export function figuresOnly(glyphs: Glyph[]): boolean {
  return textLines(glyphs).every(isFigure);
}
