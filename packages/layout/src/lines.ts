import { median, unionBoxes } from "./geometry.js";
import { type Glyph, isBlank } from "./glyphs.js";
import type { TextLine, TextSpan } from "./types.js";

/** A line under construction: its glyphs, left to right. */
export interface GlyphRun {
  glyphs: Glyph[];
}

function sameStyle(a: Glyph, b: Glyph): boolean {
  return (
    a.font.name === b.font.name &&
    Math.abs(a.font.size - b.font.size) < 0.05 &&
    a.color === b.color &&
    a.font.bold === b.font.bold &&
    a.font.italic === b.font.italic
  );
}

/** Splits MuPDF's lines wherever the horizontal gap between inked glyphs exceeds `gapEm` × font size. */
export function glyphRuns(glyphs: Glyph[], gapEm: number): GlyphRun[] {
  const byLine = new Map<number, Glyph[]>();
  for (const g of glyphs) {
    const list = byLine.get(g.line);
    if (list) list.push(g);
    else byLine.set(g.line, [g]);
  }
  const runs: GlyphRun[] = [];
  for (const list of byLine.values()) {
    let current: Glyph[] = [];
    let lastInk: Glyph | undefined;
    for (const g of list) {
      if (isBlank(g)) {
        if (current.length) current.push(g);
        continue;
      }
      const horizontal = g.rotation === 0;
      if (lastInk && horizontal && g.box.x0 - lastInk.box.x1 > gapEm * Math.max(g.size, lastInk.size)) {
        runs.push({ glyphs: trimRun(current) });
        current = [];
      }
      current.push(g);
      lastInk = g;
    }
    const trimmed = trimRun(current);
    if (trimmed.length) runs.push({ glyphs: trimmed });
  }
  return runs;
}

function trimRun(glyphs: Glyph[]): Glyph[] {
  let end = glyphs.length;
  while (end > 0 && isBlank(glyphs[end - 1] as Glyph)) end--;
  return glyphs.slice(0, end);
}

export function runText(glyphs: Glyph[]): string {
  return glyphs
    .map((g) => g.c)
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Consecutive inked glyphs of a horizontal line further apart than a tight word space, either way:
 * right-to-left text runs leftwards, and a change of direction ("…مكتبات" then "Python") jumps.
 */
function spaceMissing(previous: Glyph, next: Glyph): boolean {
  if (isBlank(previous) || isBlank(next) || previous.rotation !== 0 || next.rotation !== 0) return false;
  const apart = Math.max(next.box.x0 - previous.box.x1, previous.box.x0 - next.box.x1);
  return apart > 0.3 * Math.max(previous.size, next.size);
}

function syntheticSpace(previous: Glyph, next: Glyph): Glyph {
  const x0 = Math.min(previous.box.x1, next.box.x1);
  const x1 = Math.max(previous.box.x0, next.box.x0);
  return { ...previous, c: " ", box: { ...previous.box, x0, x1 }, x: x0 };
}

const rightToLeftLetter = /[\u0590-\u05ff\u0600-\u06ff\u0750-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/u;
const combiningMark = /\p{M}/u;

/**
 * Right-to-left words whose letters come in visual order (the first letter leftmost, as OCR text
 * layers set them) turned into logical order, the order MuPDF gives born-digital Arabic and Hebrew in;
 * a combining mark stays after its letter.
 */
function inLogicalOrder(glyphs: Glyph[]): Glyph[] {
  const out: Glyph[] = [];
  for (let start = 0; start < glyphs.length; ) {
    let end = start;
    while (end < glyphs.length && rightToLeftLetter.test((glyphs[end] as Glyph).c)) end += 1;
    if (end - start < 2) {
      out.push(glyphs[start] as Glyph);
      start += 1;
      continue;
    }
    const word = glyphs.slice(start, end);
    const bases = word.filter((g) => !combiningMark.test(g.c));
    // Stored left to right: each letter at or right of the one before, the last right of the first.
    const storedLeftToRight =
      bases.every((g, i) => i === 0 || g.box.x0 >= (bases[i - 1] as Glyph).box.x0 - 0.01) &&
      bases.length >= 2 &&
      (bases.at(-1) as Glyph).box.x0 > (bases[0] as Glyph).box.x0;
    if (storedLeftToRight) {
      const clusters: Glyph[][] = [];
      for (const g of word) {
        if (combiningMark.test(g.c) && clusters.length > 0) clusters[clusters.length - 1]?.push(g);
        else clusters.push([g]);
      }
      out.push(...clusters.reverse().flat());
    } else out.push(...word);
    start = end;
  }
  return out;
}

/** Turns a run of glyphs into a line of styled spans. */
export function toTextLine(run: Glyph[]): TextLine {
  const glyphs = inLogicalOrder(run);
  const spans: TextSpan[] = [];
  let group: Glyph[] = [];
  const flush = () => {
    const first = group[0];
    if (!first) return;
    const inked = group.filter((g) => !isBlank(g));
    spans.push({
      text: group.map((g) => g.c).join(""),
      box: unionBoxes((inked.length ? inked : group).map((g) => g.box)),
      font: first.font,
      color: first.color,
    });
    group = [];
  };
  let previous: Glyph | undefined;
  for (const g of glyphs) {
    // Two words with a gap between them but no space character (the blanks went elsewhere, e.g.
    // "5." and "Nuclear" cut apart as cells and put back into one) still read as two words.
    if (previous && spaceMissing(previous, g)) group.push(syntheticSpace(previous, g));
    const first = group[0];
    // Spaces join the span they sit in rather than starting a new one.
    if (first && !isBlank(g) && !sameStyle(first, g)) flush();
    group.push(g);
    // A zero-width character (a mark, the second letter of a ligature) says nothing about gaps.
    if (g.box.x1 - g.box.x0 > 0.01) previous = g;
  }
  flush();
  const inked = glyphs.filter((g) => !isBlank(g));
  const baselines = inked.map((g) => g.baseline);
  return {
    box: unionBoxes(inked.map((g) => g.box)),
    // The median, not the mean: an index or exponent set into the line must not move its baseline.
    baseline: baselines.length ? median(baselines) : 0,
    spans,
    rotation: glyphs[0]?.rotation ?? 0,
  };
}

export function lineText(line: TextLine): string {
  return line.spans
    .map((s) => s.text)
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}

/** The size most of the line's characters are set in. */
export function lineSize(line: TextLine): number {
  let best = 0;
  let bestCount = -1;
  const counts = new Map<number, number>();
  for (const s of line.spans) {
    const n = (counts.get(s.font.size) ?? 0) + s.text.trim().length;
    counts.set(s.font.size, n);
    if (n > bestCount) {
      best = s.font.size;
      bestCount = n;
    }
  }
  return best;
}

/**
 * Whether every word of the line is bold: punctuation set in the regular face (the colon after a bold
 * "Requirements") does not make a bold heading regular.
 */
export function lineIsBold(line: TextLine): boolean {
  const worded = line.spans.filter((s) => /[\p{L}\p{N}]/u.test(s.text));
  return worded.length > 0 && worded.every((s) => s.font.bold);
}

/**
 * Joins lines that share a baseline and nearly touch (MuPDF sometimes splits one visual line),
 * returning lines sorted top to bottom, left to right. The pieces of one baseline are joined left to
 * right whatever order their baselines sort in: a piece that carries an exponent ("10⁻³") sorts above
 * the figure it follows ("7.64 ×").
 */
export function mergeSameBaseline(lines: TextLine[], gapEm: number): TextLine[] {
  const sorted = [...lines].sort((a, b) => a.baseline - b.baseline || a.box.x0 - b.box.x0);
  const rows: TextLine[][] = [];
  for (const line of sorted) {
    const size = lineSize(line) || 10;
    const row = rows.find(
      ([first]) =>
        first !== undefined &&
        first.rotation === 0 &&
        line.rotation === 0 &&
        Math.abs(first.baseline - line.baseline) < size * 0.25,
    );
    if (row) row.push(line);
    else rows.push([line]);
  }
  const out: TextLine[] = [];
  for (const row of rows) {
    let current: TextLine | undefined;
    for (const line of row.sort((a, b) => a.box.x0 - b.box.x0)) {
      const size = lineSize(line) || 10;
      const touches =
        current !== undefined &&
        line.box.x0 >= current.box.x1 - size * 0.2 &&
        line.box.x0 - current.box.x1 < gapEm * size;
      if (!current || !touches) {
        current = line;
        out.push(line);
        continue;
      }
      const space = line.box.x0 - current.box.x1 > size * 0.1 ? " " : "";
      const last = current.spans[current.spans.length - 1];
      if (last && space && !/\s$/.test(last.text)) last.text += space;
      current.spans.push(...line.spans);
      current.box = unionBoxes([current.box, line.box]);
    }
  }
  return out.sort((a, b) => a.baseline - b.baseline || a.box.x0 - b.box.x0);
}
