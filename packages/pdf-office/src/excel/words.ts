import type { Mupdf as mupdf } from "@octavo/mupdf";

/** A word, or a phrase of words close together on one line, with its place on the page. */
export interface PlacedText {
  text: string;
  x0: number;
  x1: number;
  baseline: number;
  size: number;
}

/**
 * The page's words from MuPDF's structured text, each with its box: characters join into a word until a
 * space or a gap wider than a third of the font size.
 */
export function pageWords(page: mupdf.PDFPage): PlacedText[] {
  const words: PlacedText[] = [];
  let current: PlacedText | undefined;
  const finish = () => {
    if (current !== undefined && current.text.trim() !== "") words.push(current);
    current = undefined;
  };
  const text = page.toStructuredText("preserve-whitespace");
  try {
    text.walk({
      beginLine: finish,
      endLine: finish,
      onChar: (c, origin, _font, size, quad) => {
        const x0 = Math.min(quad[0], quad[4]);
        const x1 = Math.max(quad[2], quad[6]);
        if (c.trim() === "") {
          finish();
          return;
        }
        if (
          current !== undefined &&
          (x0 - current.x1 > size / 3 || Math.abs(origin[1] - current.baseline) > size / 2)
        ) {
          finish();
        }
        if (current === undefined) current = { text: c, x0, x1, baseline: origin[1], size };
        else {
          current.text += c;
          current.x1 = Math.max(current.x1, x1);
        }
      },
    });
  } finally {
    text.destroy();
  }
  return words;
}

/**
 * Rows of the page: words on one baseline (within 40 % of the font size) form a row, left to right, and
 * words closer than 0.6 of the font size (a stretched word space) join into one phrase (one cell).
 */
export function pageRows(words: PlacedText[]): PlacedText[][] {
  const sorted = [...words].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const rows: PlacedText[][] = [];
  let row: PlacedText[] = [];
  let rowBaseline = Number.NaN;
  for (const word of sorted) {
    if (row.length > 0 && Math.abs(word.baseline - rowBaseline) > 0.4 * word.size) {
      rows.push(row);
      row = [];
    }
    if (row.length === 0) rowBaseline = word.baseline;
    row.push(word);
  }
  if (row.length > 0) rows.push(row);
  return rows.map(phrases);
}

function phrases(row: PlacedText[]): PlacedText[] {
  const ordered = [...row].sort((a, b) => a.x0 - b.x0);
  const joined: PlacedText[] = [];
  for (const word of ordered) {
    const last = joined[joined.length - 1];
    if (last !== undefined && word.x0 - last.x1 < 0.6 * Math.max(last.size, word.size)) {
      last.text += ` ${word.text}`;
      last.x1 = Math.max(last.x1, word.x1);
    } else {
      joined.push({ ...word });
    }
  }
  return joined;
}

/**
 * Column starts shared by the whole page: the phrases' left edges clustered (a new column starts more
 * than `tolerance` points right of the previous cluster's first edge).
 */
export function columnStarts(rows: PlacedText[][], tolerance = 8): number[] {
  const edges = rows
    .flat()
    .map((phrase) => phrase.x0)
    .sort((a, b) => a - b);
  const starts: number[] = [];
  for (const edge of edges) {
    const last = starts[starts.length - 1];
    if (last === undefined || edge - last > tolerance) starts.push(edge);
  }
  return starts;
}

/** The index of the last column start at or left of `x` (plus the tolerance). */
export function columnIndex(starts: number[], x: number, tolerance = 8): number {
  let index = 0;
  for (const [candidate, start] of starts.entries()) if (start <= x + tolerance) index = candidate;
  return index;
}
