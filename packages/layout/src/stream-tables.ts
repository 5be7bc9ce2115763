import { unionBoxes } from "./geometry.js";
import type { Glyph } from "./glyphs.js";
import { columnLineReach, flush, isJustifiedLine, joinStretchedSpaces, minLineWords } from "./justified.js";
import { glyphRuns, runText } from "./lines.js";
import { listMarker } from "./list-markers.js";
import { minGutterPt, pageColumns, stretchGutters } from "./reading-order.js";
import type { Point } from "./rulings.js";
import { absorbScripts } from "./scripts.js";
import { splitTightColumns, streamColumns } from "./stream-columns.js";
import { pourIntoGrid } from "./table-build.js";
import { type Fragment, type TextRow, textRows, wordCount } from "./text-rows.js";
import type { Box, Table } from "./types.js";

/** Inside a line, a gap wider than this many ems separates table cells. */
const cellGapEm = 1;
/** A table needs at least this many rows with two or more cells. */
const minRows = 3;

/** Blank space between rows wider than this many ems ends a borderless table outright. */
const maxJoinGapEm = 5;

const multiCell = (row: TextRow) => row.fragments.length >= 2;

/** Single-cell rows at the ends of a stretch belong to the text around the table. */
function trimmed(rows: TextRow[]): TextRow[] {
  const first = rows.findIndex(multiCell);
  return first < 0 ? [] : rows.slice(first, rows.findLastIndex(multiCell) + 1);
}

/**
 * Maximal stretches of rows that look tabular (most rows split into several cells, rows close
 * together), each as its pieces: a blank wider than a few lines between rows ends a piece, which
 * `runsOf` joins again when the columns run on across it (a table's groups set apart), and ends the
 * stretch when wider than `maxJoinGapEm`. A row of prose or a wide lone line ends the stretch.
 */
function candidateRuns(rows: TextRow[], bodySize: number): TextRow[][][] {
  const columnLines = textColumnLines(rows, bodySize);
  const runs: TextRow[][][] = [];
  let pieces: TextRow[][] = [];
  let run: TextRow[] = [];
  // Every row of the stretch so far, its pieces' and the current one's, and their width across.
  let stretch: TextRow[] = [];
  let across = { x0: Number.POSITIVE_INFINITY, x1: Number.NEGATIVE_INFINITY };
  const width = () => Math.max(0, across.x1 - across.x0);
  const endPiece = () => {
    if (run.length) pieces.push(run);
    run = [];
  };
  const close = () => {
    endPiece();
    if (trimmed(stretch).filter(multiCell).length >= minRows) runs.push(pieces);
    pieces = [];
    stretch = [];
    across = { x0: Number.POSITIVE_INFINITY, x1: Number.NEGATIVE_INFINITY };
  };
  for (const row of rows) {
    const last = stretch.at(-1);
    const gap = last ? row.top - last.bottom : 0;
    if (last && gap > maxJoinGapEm * bodySize) close();
    else if (last && gap > Math.max(2.5 * bodySize, 1.6 * (last.bottom - last.top))) endPiece();
    if (stretch.length && isProseRow(row, width(), columnLines)) {
      close();
      continue;
    }
    const single = row.fragments[0];
    // A lone fragment continues a table when it is narrow, like a wrapped cell or a group label.
    const narrow = single !== undefined && single.box.x1 - single.box.x0 < 0.45 * width();
    if (multiCell(row) || (stretch.length && narrow)) {
      run.push(row);
      stretch.push(row);
      for (const f of row.fragments)
        across = { x0: Math.min(across.x0, f.box.x0), x1: Math.max(across.x1, f.box.x1) };
    } else close();
  }
  close();
  return runs;
}

/** Rows of a borderless table, with the column edges found down them (undefined: no columns). */
interface Run {
  rows: TextRow[];
  columnEdges: number[] | undefined;
}

/**
 * The runs a stretch's pieces make: one, when the columns found down the whole stretch are at least
 * the number any piece has on its own (the blanks only set groups apart); else each piece with
 * enough rows.
 */
function runsOf(pieces: TextRow[][], bodySize: number): Run[] {
  const withColumns = (rows: TextRow[]): Run => ({ rows, columnEdges: streamColumns(rows, bodySize) });
  const apart = pieces
    .map(trimmed)
    .filter((piece) => piece.filter(multiCell).length >= minRows)
    .map(withColumns);
  if (pieces.length === 1) return apart;
  const whole = withColumns(trimmed(pieces.flat()));
  const count = (run: Run) => run.columnEdges?.length ?? 0;
  return count(whole) >= Math.max(3, ...apart.map(count)) ? [whole] : apart;
}

/** Words in a fragment beyond which, spanning most of the run, it is a line of prose. */
export const proseWords = 6;
/** The share of the run's width a fragment of prose spans. */
export const proseWidthShare = 0.6;
/** A fragment of many words this many ems wide is a line of a text column (one of two is ~40). */
const proseWidthEm = 18;
/**
 * Lines of text columns covering this share of the run end it: one column of a two-column page
 * covers nearly half; a long label in a wide table's first column a quarter or less.
 */
const columnProseShare = 0.35;

/** Lines of text columns: `wide` ones known by their width alone, `aligned` ones by their neighbours. */
interface ColumnLines {
  wide: Set<Fragment>;
  aligned: Set<Fragment>;
}

/**
 * Lines of text columns: fragments of many words at least `proseWidthEm` wide; or set flush with
 * another line of several words close above or below (both edges within 1 pt: a justified column,
 * however narrow), or justified with stretched spaces.
 */
function textColumnLines(rows: TextRow[], bodySize: number): ColumnLines {
  const lines: ColumnLines = { wide: new Set(), aligned: new Set() };
  rows.forEach((row, i) => {
    const near = () => rows.slice(Math.max(0, i - columnLineReach), i + columnLineReach + 1);
    for (const f of row.fragments) {
      const flushWithAnother = () =>
        near().some((r) =>
          r.fragments.some((g) => g !== f && wordCount(g) >= minLineWords && flush(g.box, f.box)),
        );
      const many = wordCount(f) > proseWords;
      if ((many && flushWithAnother()) || isJustifiedLine(f)) lines.aligned.add(f);
      else if (many && f.box.x1 - f.box.x0 > proseWidthEm * bodySize) lines.wide.add(f);
    }
  });
  return lines;
}

/** Short cells (words at most) beside a wide line from which the line is a table's long label. */
const labelledCells = { count: 3, maxWords: 3 };

/**
 * A row of prose across a stretch `across` points wide: one line of many words spanning most of it
 * (a footnote under a table), or lines of text columns that cover a good part of it (two-column text
 * after a table, or a narrow column of text beside one). A wide line followed by several short cells
 * is a table's row with a long label, unless its neighbours set it in a text column.
 */
function isProseRow(row: TextRow, across: number, columnLines: ColumnLines): boolean {
  const width = (f: Fragment) => f.box.x1 - f.box.x0;
  if (row.fragments.some((f) => wordCount(f) > proseWords && width(f) > proseWidthShare * across))
    return true;
  const cells = row.fragments.filter((f) => wordCount(f) <= labelledCells.maxWords).length;
  const inColumns = row.fragments.filter(
    (f) => columnLines.aligned.has(f) || (columnLines.wide.has(f) && cells < labelledCells.count),
  );
  return inColumns.reduce((sum, f) => sum + width(f), 0) > columnProseShare * across;
}

/** Prose set in columns splits into long fragments of many words; table cells are short. */
function looksLikeProse(run: TextRow[]): boolean {
  const lengths = run.flatMap((r) => r.fragments.map((f) => f.text.length)).sort((a, b) => a - b);
  const medianLength = lengths[lengths.length >> 1] ?? 0;
  return medianLength > 30;
}

export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}

/**
 * Cells of many words are lines of prose that happen to line up, overall or in one column (a
 * text column beside a figure's labels).
 */
function wordy(table: Table): boolean {
  const filled = table.cells.filter((c) => c.text !== "");
  if (medianOf(filled.map((c) => c.text.split(/\s+/).length)) > 4) return true;
  const columns = table.columnEdges.length - 1;
  for (let col = 0; col < columns; col++) {
    const lengths = filled.filter((c) => c.col === col).map((c) => c.text.length);
    if (medianOf(lengths) > 40) return true;
  }
  return false;
}

/**
 * A bulleted list sets its markers in a column of their own beside its text (one column, or more where
 * wide word spacing splits the text); that is a list, not a table.
 */
function bulletList(table: Table): boolean {
  const markers = table.cells.filter((c) => c.col === 0 && c.text !== "");
  return markers.length > 0 && markers.every((c) => listMarker.test(c.text.trim()));
}

/** Slanted strokes inside a borderless table's area beyond which it is a figure's labels. */
const maxSlantsInside = 3;

/**
 * Labels of a chart or a diagram line up like cells, over lines drawn at angles (plots, arrows);
 * the lines of a table are level or upright, when it is drawn with lines at all.
 */
function drawnOver(box: Box, slants: Point[]): boolean {
  const { x0, y0, x1, y1 } = box;
  return slants.filter(([x, y]) => x >= x0 && x <= x1 && y >= y0 && y <= y1).length > maxSlantsInside;
}

/**
 * Borderless tables, found from the alignment of text: at least three close rows split by
 * whitespace that stays clear down the whole stretch into two or more columns. Rows are first read
 * across the page; then, in the text no table took, within each column of a multi-column page, where
 * a table set in one column would otherwise share its rows with the prose beside it.
 */
export function streamTables(
  glyphs: Glyph[],
  bodySize: number,
  slants: Point[],
): { tables: Table[]; rest: Glyph[] } {
  const rows = joinStretchedSpaces(fragmentRows(glyphs));
  const gutters = stretchGutters(
    rows.flatMap((row) => row.fragments),
    Math.max(minGutterPt, bodySize),
  );
  const across = tablesIn(rows, bodySize, slants, gutters);
  const left = rows.flatMap((row) => row.fragments).filter((f) => !f.glyphs.some((g) => across.taken.has(g)));
  const inColumns = pageColumns(left, Math.max(minGutterPt, bodySize)).map((column) =>
    tablesIn(textRows(column), bodySize, slants),
  );
  const found = [across, ...inColumns];
  const taken = new Set(found.flatMap((f) => [...f.taken]));
  return { tables: found.flatMap((f) => f.tables), rest: glyphs.filter((g) => !taken.has(g)) };
}

/**
 * Rows of cells on both sides of the gutter, as a share of the smaller side's: two tables side by side
 * share fewer (a wide table's rows are one row on both sides).
 */
const minSharedRows = 0.5;

/**
 * Whether a borderless table read across the page pairs what are two columns' contents: it spans a
 * gutter that the page's text keeps down a stretch, each side has rows of several cells of its own, and
 * those rows mostly fall at different heights on the two sides. A wide table's rows run across its own gaps;
 * two tables side by side in two columns have rows of their own, left to the pass within each column.
 */
function pairsColumns(run: TextRow[], extent: Box, gutters: { x0: number; x1: number }[]): boolean {
  return gutters.some((gutter) => {
    if (extent.x0 >= gutter.x0 || extent.x1 <= gutter.x1) return false;
    const left = run.filter((row) => row.fragments.filter((f) => f.box.x1 <= gutter.x0).length >= 2);
    const right = run.filter((row) => row.fragments.filter((f) => f.box.x0 >= gutter.x1).length >= 2);
    if (left.length < minRows || right.length < minRows) return false;
    const shared = left.filter((row) => right.includes(row)).length;
    return shared < minSharedRows * Math.min(left.length, right.length);
  });
}

/** Rows of the horizontal text's fragments: runs of glyphs split where a gap of `cellGapEm` separates cells. */
export function fragmentRows(glyphs: Glyph[]): TextRow[] {
  // Exponents and indices ride on their fragment ("σ̂²_EB"), not on rows of their own.
  const fragments = absorbScripts(
    glyphRuns(
      glyphs.filter((g) => g.rotation === 0),
      cellGapEm,
    ).map((r) => r.glyphs),
  )
    .map((run) => ({ glyphs: run, text: runText(run) }))
    .filter((f) => f.text !== "");
  return textRows(fragments);
}

/**
 * A borderless table's grid from its rows: the columns found down them (or given), split further where
 * tightly set figures line up, and a row per text row; the glyphs poured in.
 */
export function gridFromRows(
  run: TextRow[],
  bodySize: number,
  found = streamColumns(run, bodySize),
): { table: Table; taken: Set<Glyph> } | undefined {
  if (!found || found.length < 3) return undefined;
  const columnEdges = splitTightColumns(run, found);
  const rowEdges = [run[0]?.top ?? 0];
  for (let i = 1; i < run.length; i++) {
    const above = run[i - 1];
    const below = run[i];
    if (above && below) rowEdges.push((above.bottom + below.top) / 2);
  }
  rowEdges.push(run[run.length - 1]?.bottom ?? 0);
  const areas = [];
  for (let row = 0; row < rowEdges.length - 1; row++)
    for (let col = 0; col < columnEdges.length - 1; col++) areas.push({ row, col, rowSpan: 1, colSpan: 1 });
  const runGlyphs = run.flatMap((r) => r.fragments.flatMap((f) => f.glyphs));
  return pourIntoGrid(runGlyphs, columnEdges, rowEdges, areas, false, bodySize);
}

function tablesIn(
  rows: TextRow[],
  bodySize: number,
  slants: Point[],
  pageGutters: { x0: number; x1: number }[] = [],
): { tables: Table[]; taken: Set<Glyph> } {
  const tables: Table[] = [];
  const taken = new Set<Glyph>();
  for (const { rows: run, columnEdges: found } of candidateRuns(rows, bodySize).flatMap((pieces) =>
    runsOf(pieces, bodySize),
  )) {
    if (!found || found.length < 3) continue;
    // Checked on the run's extent first: a diagram's labels cost no grid.
    const extent = unionBoxes(run.flatMap((r) => r.fragments.map((f) => f.box)));
    if (looksLikeProse(run) || drawnOver(extent, slants)) continue;
    if (pairsColumns(run, extent, pageGutters)) continue;
    const built = gridFromRows(run, bodySize, found);
    if (!built) continue;
    if (wordy(built.table) || bulletList(built.table)) continue;
    tables.push(built.table);
    for (const g of built.taken) taken.add(g);
  }
  return { tables, taken };
}
