import type { Mupdf } from "@octavo/mupdf";

import { type Box, boxOfQuad, union } from "./box.js";

/**
 * A page's text as one string, in MuPDF's reading order, with the box of every UTF-16 unit: a match's boxes
 * are those of the characters it spans. Lines end in "\n" and blocks in a blank line, so patterns see
 * line breaks where the page has them; those separators have no box.
 */
export interface PageText {
  /** What the rules search: the page's text with words hyphenated at a line's end joined again. */
  text: string;
  /** Per UTF-16 unit of `text`: its unit in the page's text, to which `boxes` and `lines` belong. */
  origin: number[];
  /** Per UTF-16 unit of `text`: the character's box (display space, y down), or undefined for a separator. */
  boxes: (Box | undefined)[];
  /** Per UTF-16 unit: the line it is on (-1 for a separator), so a match is boxed line by line. */
  lines: number[];
}

export function pageText(page: Mupdf.PDFPage): PageText {
  // With the annotations' and widgets' appearances: text shown there is on the page as much as its content's.
  const list = page.toDisplayList(true);
  // Ligatures kept whole, each then read as its letters by NFKC below ("ﬁ" as "fi", Arabic "ﻻ" as lam and
  // alef in reading order); MuPDF's own expansion put an Arabic ligature's letters in the wrong order.
  const stext = list.toStructuredText("preserve-whitespace,preserve-ligatures");
  list.destroy();
  const parts: string[] = [];
  const boxes: (Box | undefined)[] = [];
  const lines: number[] = [];
  let line = -1;
  let direction: [number, number] = [1, 0];
  let chars: PageChar[] = [];
  const separator = (char: string): void => {
    parts.push(char);
    boxes.push(undefined);
    lines.push(-1);
  };
  try {
    stext.walk({
      beginLine(_bbox, _wmode, dir) {
        line += 1;
        direction = [dir[0], dir[1]];
        chars = [];
      },
      onChar(c, _origin, font, size, quad) {
        font.destroy();
        chars.push({ c, size, box: boxOfQuad(quad) });
      },
      endLine() {
        for (const { c, box } of seenChars(chars, direction)) {
          // Compatibility forms as their letters (Arabic presentation forms, full-width Latin), as typed.
          const normal = c.normalize("NFKC");
          parts.push(normal);
          for (let unit = 0; unit < normal.length; unit += 1) {
            boxes.push(box);
            lines.push(line);
          }
        }
        separator("\n");
      },
      endTextBlock() {
        separator("\n");
      },
    });
  } finally {
    stext.destroy();
  }
  return { ...joinHyphenation(parts.join("")), boxes, lines };
}

interface PageChar {
  c: string;
  size: number;
  box: Box;
}

/**
 * The line's characters without the spaces a reader does not see: a space glyph drawn over its neighbours,
 * with no gap between the letters either side ("John" and "Doe" set touching, a space in another font laid
 * over the join; a space inside an "fi" ligature). pdftotext reads such words as one; so does a reader.
 */
function seenChars(chars: PageChar[], [dx, dy]: [number, number]): PageChar[] {
  const along = (box: Box): [number, number] => {
    const ends = [
      box[0] * dx + box[1] * dy,
      box[2] * dx + box[1] * dy,
      box[0] * dx + box[3] * dy,
      box[2] * dx + box[3] * dy,
    ];
    return [Math.min(...ends), Math.max(...ends)];
  };
  const blank = chars.map((char) => char.c.trim() === "");
  // For each character, the next one that is not white space: one pass from the end.
  const nextSeen: (PageChar | undefined)[] = [];
  for (let index = chars.length - 1, next: PageChar | undefined; index >= 0; index -= 1) {
    nextSeen[index] = next;
    if (!blank[index]) next = chars[index];
  }
  let before: PageChar | undefined;
  return chars.filter((char, index) => {
    if (!blank[index]) {
      before = char;
      return true;
    }
    const after = nextSeen[index];
    if (before === undefined || after === undefined) return true;
    const [start, end] = along(before.box);
    const [nextStart, nextEnd] = along(after.box);
    // Right to left, the next letter in reading order lies before the last.
    const gap = nextStart + nextEnd >= start + end ? nextStart - end : start - nextEnd;
    return gap >= 0.1 * char.size;
  });
}

/** "Trace-\nMonkey" is searched as "TraceMonkey": a hyphen and line break between two letters go. */
function joinHyphenation(raw: string): { text: string; origin: number[] } {
  const kept: string[] = [];
  const origin: number[] = [];
  for (let unit = 0; unit < raw.length; unit += 1) {
    const breaks = raw[unit] === "-" && raw[unit + 1] === "\n";
    if (breaks && /\p{L}/u.test(raw[unit - 1] ?? "") && /\p{L}/u.test(raw[unit + 2] ?? "")) {
      unit += 1;
      continue;
    }
    kept.push(raw[unit] ?? "");
    origin.push(unit);
  }
  return { text: kept.join(""), origin };
}

/** Where a match is: the box drawn over it, and the part of it MuPDF's redaction is given. */
export interface MatchBox {
  /** The match's line box: what the fill covers, and the image pixels under it. */
  shown: Box;
  /**
   * The same box, narrowed across the line until no glyph of a line above or below touches it. MuPDF
   * removes every glyph whose box (its advance, from the font's descender to its ascender, less a tenth)
   * meets a redaction's rectangle; where lines are set close those boxes overlap the next line's, and the
   * whole box took letters of the lines beside the match.
   */
  cut: Box;
}

/**
 * The boxes of `text`'s units from `start` to `end`, joined line by line: a hyphenated word's two halves,
 * and its hyphen, are boxed where they are.
 */
export function matchBoxes(page: PageText, start: number, end: number): MatchBox[] {
  const byLine = new Map<number, Box>();
  const first = page.origin[start] ?? 0;
  const last = page.origin[end - 1] ?? first;
  for (let unit = first; unit <= last; unit += 1) {
    const box = page.boxes[unit];
    const line = page.lines[unit] ?? -1;
    if (box === undefined) continue;
    const joined = byLine.get(line);
    byLine.set(line, joined === undefined ? box : union(joined, box));
  }
  return [...byLine.entries()].map(([line, shown]) => ({ shown, cut: clearOfOtherLines(page, shown, line) }));
}

/** How far past a neighbour's box a narrowed edge stays, in points. */
const clearance = 0.05;

/** A glyph's box as MuPDF's redaction tests it: a tenth smaller (taken as a twentieth a side, to be safe). */
const shrink = (box: Box, share: number): Box => {
  const [dx, dy] = [(box[2] - box[0]) * share, (box[3] - box[1]) * share];
  return [box[0] + dx, box[1] + dy, box[2] - dx, box[3] - dy];
};

/**
 * `box`, on `line`, narrowed across its line (in y for a line that runs across the page, in x for one that
 * runs down it) to miss the glyphs of other lines it overlaps; kept wide enough to meet every glyph of its
 * own (each taken a tenth smaller a side, more than MuPDF takes). Where the lines overlap too much to part,
 * the box stays whole: letters beside the match may go with it, the match never stays.
 */
/** Each line's box and the units on it, worked out once per page text. */
const lineIndexes = new WeakMap<PageText, { line: number; box: Box; units: number[] }[]>();

function linesOf(page: PageText): { line: number; box: Box; units: number[] }[] {
  let index = lineIndexes.get(page);
  if (index !== undefined) return index;
  const byLine = new Map<number, { line: number; box: Box; units: number[] }>();
  page.boxes.forEach((glyph, unit) => {
    const line = page.lines[unit] ?? -1;
    if (glyph === undefined || line < 0) return;
    const entry = byLine.get(line);
    if (entry === undefined) {
      byLine.set(line, { line, box: [...glyph], units: [unit] });
      return;
    }
    entry.units.push(unit);
    entry.box = union(entry.box, glyph);
  });
  index = [...byLine.values()];
  lineIndexes.set(page, index);
  return index;
}

function clearOfOtherLines(page: PageText, box: Box, line: number): Box {
  // Intervals across the line and along it; a line wider than tall runs across the page.
  const runsAcross = box[2] - box[0] >= box[3] - box[1];
  const across = (b: Box): [number, number] => (runsAcross ? [b[1], b[3]] : [b[0], b[2]]);
  const along = (b: Box): [number, number] => (runsAcross ? [b[0], b[2]] : [b[1], b[3]]);
  const [boxFrom, boxTo] = across(box);
  const [boxStart, boxEnd] = along(box);
  let [from, to] = [boxFrom, boxTo];
  let [ownFrom, ownTo] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (const other of linesOf(page)) {
    // Only lines that reach the box: most of the page is far from it.
    const [lineStart, lineEnd] = along(other.box);
    const [lineFrom, lineTo] = across(other.box);
    if (lineStart >= boxEnd || boxStart >= lineEnd || lineFrom >= boxTo || boxFrom >= lineTo) continue;
    for (const unit of other.units) {
      const glyph = page.boxes[unit];
      if (glyph === undefined) continue;
      const [start, end] = along(glyph);
      if (start >= boxEnd || boxStart >= end) continue;
      if (other.line === line) {
        const [low, high] = across(shrink(glyph, 0.1));
        ownFrom = Math.max(ownFrom, low);
        ownTo = Math.min(ownTo, high);
        continue;
      }
      const [low, high] = across(shrink(glyph, 0.05));
      if (low >= to || from >= high) continue;
      // A glyph taller than the whole line (a symbol drawn large) meets any part of it: no narrowing saves it.
      if (low <= boxFrom && boxTo <= high) continue;
      // Past the edge: MuPDF counts boxes that only touch as meeting.
      if (low + high < boxFrom + boxTo) from = Math.max(from, high + clearance);
      else to = Math.min(to, low - clearance);
    }
  }
  // It must still reach into every glyph of its own line.
  if (!(from < ownTo && ownFrom < to && from < to)) return box;
  return runsAcross ? [box[0], from, box[2], to] : [from, box[1], to, box[3]];
}
