import type { Glyph } from "./glyphs.js";
import { joinStretchedSpaces } from "./justified.js";
import type { Segment } from "./rulings.js";
import { streamColumns } from "./stream-columns.js";
import { fragmentRows, gridFromRows, medianOf, proseWidthShare, proseWords } from "./stream-tables.js";
import type { Fragment, TextRow } from "./text-rows.js";
import { wordCount } from "./text-rows.js";
import type { Table } from "./types.js";

/**
 * Tables ruled across only: booktabs' \toprule, \midrule and \bottomrule, or \hline without upright
 * rules. Such rules share their ends, and the text between them is the table's, however it is spaced:
 * the rules settle which rows belong to the table, where whitespace alone (`streamTables`) has to guess.
 */

/** Ends of one table's rules agree within this many points. */
const endTolerance = 2;
/** A rule narrower than this many ems is an underline or a \cmidrule, not a table's edge. */
const minRuleEm = 6;
/**
 * Text this close to a rule (points between the rule and the text's box, in ems) is set against it,
 * as a table sets its rows against its rules; a caption or the text around a table keeps further off.
 */
const touchingEm = 0.9;
/**
 * Between two of a table's rules, rows may keep further off (tables set with \arraystretch); a caption
 * between two tables keeps off both rules by a float's and a caption's skips.
 */
const betweenRulesEm = 1.5;
/** Inside a table's band of rows, the gap between rows grows at most this much over the closest pair. */
const maxRowGapGrowth = 1.8;

/** Same-ended rules, top to bottom. */
function ruleGroups(rules: Segment[], bodySize: number): Segment[][] {
  const groups: Segment[][] = [];
  const wide = rules.filter((r) => r.x1 - r.x0 >= minRuleEm * bodySize).sort((a, b) => a.y0 - b.y0);
  for (const rule of wide) {
    const group = groups.find(
      (g) =>
        Math.abs((g[0]?.x0 ?? 0) - rule.x0) <= endTolerance &&
        Math.abs((g[0]?.x1 ?? 0) - rule.x1) <= endTolerance,
    );
    if (group) group.push(rule);
    else groups.push([rule]);
  }
  return groups;
}

/** A row's part between a rule's ends, and the whole row it is part of. */
type BandRow = TextRow & { source: TextRow };

/** Rows whose text lies across [x0, x1] (centre inside), top to bottom. */
function rowsAcross(rows: TextRow[], x0: number, x1: number): BandRow[] {
  return rows
    .map((row) => ({
      ...row,
      source: row,
      fragments: row.fragments.filter((f) => {
        const cx = (f.box.x0 + f.box.x1) / 2;
        return cx >= x0 && cx <= x1;
      }),
    }))
    .filter((row) => row.fragments.length > 0)
    .map((row) => ({
      ...row,
      top: Math.min(...row.fragments.map((f) => f.box.y0)),
      bottom: Math.max(...row.fragments.map((f) => f.box.y1)),
    }));
}

/** Words of a lone line across most of the rule beyond which, nearly all of letters, it is prose. */
const loneProseWords = 4;

/**
 * Whether a row is no table's: text reaching over the rule's ends, a line of many words across most of
 * the rule, or a lone line of words across most of it (a narrow column of text as wide as the table,
 * between two tables).
 */
function outsideTable(row: TextRow, rule: Segment): boolean {
  const across = (f: Fragment) => f.box.x1 - f.box.x0 > proseWidthShare * (rule.x1 - rule.x0);
  const [only, ...others] = row.fragments;
  if (only && others.length === 0 && across(only) && isProse(only, loneProseWords)) return true;
  return row.fragments.some(
    (f) =>
      f.box.x0 < rule.x0 - endTolerance ||
      f.box.x1 > rule.x1 + endTolerance ||
      (wordCount(f) > proseWords && across(f)),
  );
}

/**
 * The rules of one table and the rows between them: consecutive same-ended rules belong together when
 * each holds its rows against it on the side facing the other (nothing between them at all: a double
 * rule). A rule with text set against it on the outside (a header above a lone \midrule, body rows
 * below a last \hline) takes those rows too, while they keep the table's spacing.
 */
function bands(
  group: Segment[],
  rows: BandRow[],
  prose: Set<TextRow>,
  bodySize: number,
): { top: number; bottom: number }[] {
  const touching = touchingEm * bodySize;
  const spaced = betweenRulesEm * bodySize;
  const between = (a: number, b: number) => rows.filter((r) => r.top >= a && r.bottom <= b);
  const out: { top: number; bottom: number }[] = [];
  for (let i = 0; i < group.length; i++) {
    const rule = group[i];
    if (!rule) continue;
    const last = out.at(-1);
    const previous = group[i - 1];
    if (last && previous) {
      const inside = between(previous.y0, rule.y0);
      const first = inside[0];
      const final = inside.at(-1);
      // Nothing between: a double rule, or two tables' rules one above the other.
      const joined =
        !first || !final
          ? rule.y0 - previous.y0 <= touching
          : first.top - previous.y0 <= spaced &&
            rule.y0 - final.bottom <= spaced &&
            !inside.some((row) => outsideTable(row, rule));
      if (joined) {
        last.bottom = rule.y0;
        continue;
      }
    }
    out.push({ top: rule.y0, bottom: rule.y0 });
  }
  const [edge] = group;
  if (!edge) return [];
  return out
    .map((band) => extendBand(band, rows, prose, edge, bodySize))
    .filter((band) => band.bottom > band.top);
}

/** Words beyond which a lone fragment is a line of prose rather than a cell. */
const maxLoneWords = 4;

/** A row of cells: several fragments, or one short one (a wrapped cell, a group label). */
function cellLike(row: TextRow): boolean {
  const [only, ...others] = row.fragments;
  return others.length > 0 || (only !== undefined && wordCount(only) <= maxLoneWords);
}

/**
 * A band's rows set against its outer rules on the outside: a header row over a table whose first rule
 * is a \midrule, body rows under one whose last is a header's \hline. Rows are taken while they stay
 * within the rule's ends and as close together as the closest pair.
 */
function extendBand(
  band: { top: number; bottom: number },
  rows: BandRow[],
  prose: Set<TextRow>,
  rule: Segment,
  bodySize: number,
): { top: number; bottom: number } {
  const touching = touchingEm * bodySize;
  const reach = (outward: BandRow[], edge: number, up: boolean): number => {
    let at = edge;
    let closest = Number.POSITIVE_INFINITY;
    for (const row of outward) {
      const gap = up ? at - row.bottom : row.top - at;
      const limit = at === edge ? touching : Math.max(touching, maxRowGapGrowth * closest);
      if (gap > limit || outsideTable(row, rule) || prose.has(row.source) || !cellLike(row)) break;
      if (at !== edge) closest = Math.min(closest, gap);
      at = up ? row.top : row.bottom;
    }
    return at;
  };
  const above = rows.filter((r) => r.bottom <= band.top).reverse();
  const below = rows.filter((r) => r.top >= band.bottom);
  return { top: reach(above, band.top, true), bottom: reach(below, band.bottom, false) };
}

/** Blank under a band's last rule within which rows of several cells carry the table on. */
const runOnEm = 2.5;
/** Cells a row under the band needs to carry the table on. */
const runOnCells = 3;

/**
 * Whether the table runs on under the band's last rule, past the spacing a rule keeps: a ruled header
 * over a body set without rules (camelot's budget). The whitespace pass reads such a table whole.
 */
function runsOnBelow(
  band: { bottom: number },
  rows: BandRow[],
  prose: Set<TextRow>,
  bodySize: number,
): boolean {
  const next = rows.find((r) => r.top >= band.bottom);
  return (
    next !== undefined &&
    next.top - band.bottom <= runOnEm * bodySize &&
    next.fragments.length >= runOnCells &&
    !prose.has(next.source)
  );
}

/**
 * Lines of justified prose, whose stretched spaces split them into fragments like cells: a table's
 * band never reaches out over them (between its rules, rows flush at both ends are a table's too).
 */
function proseLines(rows: TextRow[]): Set<TextRow> {
  const joined = joinStretchedSpaces(rows);
  return new Set(rows.filter((_, i) => joined[i]?.fragments.some((f) => isProse(f))));
}

/** Words of letters (and their punctuation), as prose has and a table's figures do not. */
const letterWord = /^\p{L}[\p{L}'’.,;:!?-]*$/u;
/** Of the words of a line of prose, at least this share are words of letters. */
const minLetterWordShare = 0.75;

/** A line of many words, nearly all of letters: prose, where a table's row flush at both ends has figures. */
function isProse(f: Fragment, minWords = proseWords + 1): boolean {
  const words = f.text.split(/\s+/).filter((w) => w !== "");
  const letters = words.filter((w) => letterWord.test(w)).length;
  return words.length >= minWords && letters >= minLetterWordShare * words.length;
}

/**
 * Rows between a table's rules that may cross a gap between columns (a \multicolumn value, a group's
 * label): the rules, not the whitespace alone, say that these rows are a table.
 */
const spanningRows = 1;

/** Words per cell (median) beyond which the text between the rules is prose framed by rules. */
const maxCellWords = 6;

/**
 * Tables bounded by same-ended horizontal rules, with their columns found from the whitespace of the
 * rows between them. Returns the tables and the glyphs they did not take.
 */
export function ruleBoundedTables(
  rules: Segment[],
  glyphs: Glyph[],
  bodySize: number,
): { tables: Table[]; rest: Glyph[] } {
  const rows = fragmentRows(glyphs);
  const prose = proseLines(rows);
  const tables: Table[] = [];
  const taken = new Set<Glyph>();
  for (const group of ruleGroups(rules, bodySize)) {
    const first = group[0];
    if (!first) continue;
    const across = rowsAcross(rows, first.x0 - endTolerance, first.x1 + endTolerance);
    for (const band of bands(group, across, prose, bodySize)) {
      const inside = across.filter((r) => r.top >= band.top - 1 && r.bottom <= band.bottom + 1);
      const free = inside
        .map((row) => ({
          ...row,
          fragments: row.fragments.filter((f) => !f.glyphs.some((g) => taken.has(g))),
        }))
        .filter((row) => row.fragments.length > 0);
      if (free.length < 2 || runsOnBelow(band, across, prose, bodySize)) continue;
      const built = gridFromRows(free, bodySize, streamColumns(free, bodySize, spanningRows));
      if (!built) continue;
      const filled = built.table.cells.filter((c) => c.text !== "");
      if (medianOf(filled.map((c) => c.text.split(/\s+/).length)) > maxCellWords) continue;
      tables.push(built.table);
      for (const g of built.taken) taken.add(g);
    }
  }
  return { tables, rest: glyphs.filter((g) => !taken.has(g)) };
}
