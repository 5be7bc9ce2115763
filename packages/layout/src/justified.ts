import { median, unionBoxes } from "./geometry.js";
import { type Glyph, isBlank } from "./glyphs.js";
import { type Fragment, type TextRow, wordCount } from "./text-rows.js";
import type { Box } from "./types.js";

/**
 * Justified text stretches every word space of a line alike. Stretched past the gap that separates
 * table cells, a line of a narrow text column falls apart into fragments, which then line up with the
 * cells of a table beside it. These helpers put such lines back together and recognise them.
 */

/** Word spaces of one justified line are within this many ems of each other. */
const sameSpacingEm = 0.15;
/** Justification stretches a word space to at most this many ems; wider gaps are a table's. */
const maxStretchedSpaceEm = 1.6;
/** A break between fragments is a word space when at least this many other word spaces of its line match it. */
const minMatchingSpaces = 2;
/** Word spaces of a justified line: ink to ink, this many ems or more (a plain space is 0.25–0.4 em). */
const stretchedSpaceEm = 0.45;
/** A line of a text column has at least this many words; fewer words are a cell's label as likely. */
export const minLineWords = 4;
/** Lines of one justified column end within this many points of each other on both sides. */
const flushTolerancePt = 1;

const hasLetter = (glyphs: Glyph[]) => glyphs.some((g) => /\p{L}/u.test(g.c));

/** Ink-to-ink gaps between the words of a run of glyphs, each in ems of the larger glyph. */
function wordGapsEm(glyphs: Glyph[]): number[] {
  const gaps: number[] = [];
  let lastInk: Glyph | undefined;
  let spaced = false;
  for (const g of glyphs) {
    if (isBlank(g)) {
      spaced = lastInk !== undefined;
      continue;
    }
    if (lastInk && spaced) gaps.push((g.box.x0 - lastInk.box.x1) / Math.max(g.size, lastInk.size));
    lastInk = g;
    spaced = false;
  }
  return gaps;
}

const inked = (glyphs: Glyph[]) => glyphs.filter((g) => !isBlank(g));

/** Rows either way within which a justified line finds another line of its column. */
export const columnLineReach = 4;

const chainWords = (chain: Fragment[]) => chain.reduce((n, f) => n + wordCount(f), 0);

/** Two lines set flush on both sides, as the lines of one justified column are. */
export const flush = (a: Box, b: Box) =>
  Math.abs(a.x0 - b.x0) <= flushTolerancePt && Math.abs(a.x1 - b.x1) <= flushTolerancePt;

/** A row's fragments in chains whose breaks are all stretched word spaces. */
function chainsOf(row: TextRow): Fragment[][] {
  const pieces = row.fragments;
  const gapEm = (a: Fragment, b: Fragment) => (b.box.x0 - a.box.x1) / Math.max(a.size, b.size);
  const breaks = pieces.slice(1).map((next, i) => gapEm(pieces[i] as Fragment, next));
  const inner = pieces.map((f) => wordGapsEm(f.glyphs));
  const spaces = [...inner.flat(), ...breaks];
  // Whether the break before piece `i` is a stretched word space.
  const stretched = (i: number) => {
    const gap = breaks[i - 1] ?? Infinity;
    const alike = (s: number) => Math.abs(s - gap) <= sameSpacingEm;
    return (
      gap <= maxStretchedSpaceEm &&
      spaces.filter(alike).length - 1 >= minMatchingSpaces &&
      [...(inner[i - 1] ?? []), ...(inner[i] ?? [])].every(alike) &&
      hasLetter(pieces[i - 1]?.glyphs ?? []) &&
      hasLetter(pieces[i]?.glyphs ?? [])
    );
  };
  const chains: Fragment[][] = [];
  pieces.forEach((piece, i) => {
    const chain = chains.at(-1);
    if (chain && stretched(i)) chain.push(piece);
    else chains.push([piece]);
  });
  return chains;
}

/**
 * Joins neighbouring fragments of a row whose gaps are stretched word spaces: no wider than
 * justification stretches a space, matched by other word spaces of the row and by every space
 * inside both fragments, letters on both sides. Joined, they must make a line of several words set
 * flush with another line of several words close above or below: a justified column's. Header cells
 * set with wide spaces ("Postnatal  Day 4", "Weight  Controls  Weight  Controls") stay apart.
 */
export function joinStretchedSpaces(rows: TextRow[]): TextRow[] {
  const chains = rows.map(chainsOf);
  const extent = (chain: Fragment[]) => unionBoxes(chain.map((f) => f.box));
  const lines = chains.map((row) => row.filter((chain) => chainWords(chain) >= minLineWords).map(extent));
  return rows.map((row, i) => {
    const near = lines.slice(Math.max(0, i - columnLineReach), i + columnLineReach + 1);
    const fragments = (chains[i] ?? []).flatMap((chain) => {
      if (chain.length < 2 || chainWords(chain) < minLineWords) return chain;
      const box = extent(chain);
      const matched = near.flat().filter((other) => flush(other, box)).length > 1; // itself, and another
      return matched ? [chain.reduce(joined)] : chain;
    });
    return { ...row, fragments };
  });
}

/** One fragment of two on a row, with a blank glyph filling the gap between them. */
function joined(a: Fragment, b: Fragment): Fragment {
  const last = inked(a.glyphs).at(-1) as Glyph;
  const first = inked(b.glyphs)[0] as Glyph;
  const space: Glyph = {
    ...last,
    c: " ",
    box: { ...last.box, x0: last.box.x1, x1: first.box.x0 },
    x: last.box.x1,
  };
  return {
    glyphs: [...a.glyphs, space, ...b.glyphs],
    text: `${a.text} ${b.text}`,
    box: unionBoxes([a.box, b.box]),
    baseline: a.baseline,
    size: Math.max(a.size, b.size),
  };
}

/** A line of justified text: several words, mostly of letters, all set apart by stretched spaces. */
export function isJustifiedLine(fragment: Fragment): boolean {
  const gaps = wordGapsEm(fragment.glyphs);
  if (gaps.length + 1 < minLineWords || median(gaps) < stretchedSpaceEm) return false;
  // Figures set half an em apart are a table's row, however evenly spaced.
  const words = fragment.text.split(/\s+/);
  return words.filter((word) => /\p{L}/u.test(word)).length * 2 > words.length;
}
