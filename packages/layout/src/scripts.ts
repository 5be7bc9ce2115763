import { unionBoxes } from "./geometry.js";
import { type Glyph, isBlank } from "./glyphs.js";
import type { Box } from "./types.js";

/** What deciding whether one run rides on another needs. */
interface RunShape {
  glyphs: Glyph[];
  box: Box;
  /** The size most of its characters are set in. */
  size: number;
  rotation: number;
}

function shapeOf(glyphs: Glyph[]): RunShape {
  const inked = glyphs.filter((g) => !isBlank(g));
  const counts = new Map<number, number>();
  let size = 0;
  let best = -1;
  for (const g of inked) {
    const n = (counts.get(g.size) ?? 0) + 1;
    counts.set(g.size, n);
    if (n > best) {
      best = n;
      size = g.size;
    }
  }
  return { glyphs, box: unionBoxes(inked.map((g) => g.box)), size, rotation: glyphs[0]?.rotation ?? 0 };
}

/** Whether `small` sits on `host` as a superscript, subscript or marker. */
function ridesOn(small: RunShape, host: RunShape): boolean {
  if (small.rotation !== 0 || host.rotation !== 0 || small.glyphs.length === 0) return false;
  const size = host.size;
  if (small.size > 0.85 * size || small.box.x1 - small.box.x0 > 6 * size) return false;
  const height = small.box.y1 - small.box.y0;
  const shared = Math.min(small.box.y1, host.box.y1) - Math.max(small.box.y0, host.box.y0);
  if (shared < 0.4 * height) return false;
  return small.box.x0 <= host.box.x1 + 0.5 * size && small.box.x1 >= host.box.x0 - 0.5 * size;
}

/**
 * The host's glyphs with the script's set in at its place. MuPDF leaves a space character where a
 * script interrupts its line ("d ) und" around the index of "dX )"); that space goes after the script
 * when a gap follows it and away when the script fills it, so "x₁, x₂" reads "x1, x2", not "x 1, x 2".
 */
function insertScript(host: RunShape, script: RunShape): Glyph[] {
  const { x0: start, x1: end } = script.box;
  const covered = (g: Glyph) =>
    isBlank(g) && Math.min(g.box.x1, end) - Math.max(g.box.x0, start) > 0.5 * (g.box.x1 - g.box.x0);
  const kept = host.glyphs.filter((g) => !covered(g));
  let at = kept.findIndex((g) => !isBlank(g) && (g.box.x0 + g.box.x1) / 2 > start);
  if (at < 0) at = kept.length;
  // A blank right before the script belongs before the next word, after the script.
  while (at > 0 && isBlank(kept[at - 1] as Glyph)) at -= 1;
  const before = kept.slice(0, at);
  const after = kept.slice(at);
  const nextInk = after.find((g) => !isBlank(g));
  const blanks = after.slice(0, nextInk ? after.indexOf(nextInk) : after.length);
  const rest = after.slice(blanks.length);
  const gap = nextInk ? nextInk.box.x0 - end : 0;
  const movedBlank = host.glyphs.find(covered) ?? blanks[0];
  const space = nextInk && gap > 0.15 * host.size && movedBlank ? [movedBlank] : [];
  return [...before, ...script.glyphs.filter((g) => !isBlank(g)), ...space, ...rest];
}

/**
 * Folds small raised or lowered runs (footnote marks, exponents, indices) into the run they belong
 * to, at the place they sit, so they neither break paragraphs nor stand alone.
 */
export function absorbScripts(runs: Glyph[][]): Glyph[][] {
  const shapes = runs.map(shapeOf);
  const absorbed = new Set<RunShape>();
  for (const small of shapes) {
    const host = shapes.find((h) => h !== small && !absorbed.has(h) && ridesOn(small, h));
    if (!host) continue;
    host.glyphs = insertScript(host, small);
    host.box = unionBoxes([host.box, small.box]);
    absorbed.add(small);
  }
  return shapes.filter((s) => !absorbed.has(s)).map((s) => s.glyphs);
}
