import { unionBoxes } from "./geometry.js";
import type { Glyph } from "./glyphs.js";
import type { Box } from "./types.js";

export interface Fragment {
  glyphs: Glyph[];
  text: string;
  box: Box;
  baseline: number;
  size: number;
}

export interface TextRow {
  fragments: Fragment[];
  baseline: number;
  top: number;
  bottom: number;
}

/** The words of a fragment's text. */
export const wordCount = (f: Fragment) => f.text.split(/\s+/).length;

/** Groups fragments sharing a baseline into rows, top to bottom, each row left to right. */
export function textRows(runs: { glyphs: Glyph[]; text: string }[]): TextRow[] {
  const fragments: Fragment[] = runs.map((r) => {
    const inked = r.glyphs.filter((g) => g.c.trim() !== "");
    const sizes = inked.map((g) => g.size).sort((a, b) => a - b);
    // The baseline its full-size glyphs sit on: exponents and indices ride above and below it.
    const largest = sizes.at(-1) ?? 0;
    const full = inked.filter((g) => g.size >= 0.9 * largest);
    return {
      glyphs: r.glyphs,
      text: r.text,
      box: unionBoxes(inked.map((g) => g.box)),
      baseline: full.reduce((s, g) => s + g.baseline, 0) / Math.max(1, full.length),
      size: sizes[sizes.length >> 1] ?? 10,
    };
  });
  fragments.sort((a, b) => a.baseline - b.baseline);
  const rows: TextRow[] = [];
  for (const f of fragments) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(f.baseline - row.baseline) < 0.4 * f.size) {
      row.fragments.push(f);
      row.top = Math.min(row.top, f.box.y0);
      row.bottom = Math.max(row.bottom, f.box.y1);
    } else rows.push({ fragments: [f], baseline: f.baseline, top: f.box.y0, bottom: f.box.y1 });
  }
  for (const row of rows) row.fragments.sort((a, b) => a.box.x0 - b.box.x0);
  return rows;
}
