import { figuresOnly, lineCentres, near, textLines, wrapsOn } from "./band-lines.js";
import { type Glyph, isBlank } from "./glyphs.js";
import type { LatticeGrid } from "./lattice.js";
import { areaOwners, indexIn } from "./table-build.js";

type Area = LatticeGrid["areas"][number];

/** Lines an area reaching down from a band above must hold in a band for the band to be split. */
const minReachingLines = 3;
/** Ruled rows of wrapped cells that show a table's rulings part its rows, not just its header. */
const minWrappedRows = 3;

/** Each cell's glyphs in a band; undefined when some glyph is in no cell. */
function glyphsByArea(
  band: Glyph[],
  r: number,
  grid: LatticeGrid,
  owner: number[][],
): Map<Area, Glyph[]> | undefined {
  const byArea = new Map<Area, Glyph[]>();
  for (const g of band) {
    const area = grid.areas[owner[r]?.[indexIn(grid.columnEdges, (g.box.x0 + g.box.x1) / 2)] ?? -1];
    if (!area) return undefined;
    const list = byArea.get(area);
    if (list) list.push(g);
    else byArea.set(area, [g]);
  }
  return byArea;
}

/**
 * A row of wrapped cells: every cell's text starts on the band's first line, and one cell has that
 * line alone beside another of several ("Market / Design Motivation" beside its five-line comments).
 */
function wrappedRow(band: Glyph[], centres: number[], byArea: Map<Area, Glyph[]> | undefined): boolean {
  if (byArea === undefined || byArea.size < 2) return false;
  const first = centres[0];
  if (first === undefined || centres.length < 2) return false;
  const cellLines = [...byArea.values()].map(lineCentres);
  if (!cellLines.every((lines) => lines[0] !== undefined && near(lines[0], first, band))) return false;
  return cellLines.some((lines) => lines.length === 1) && cellLines.some((lines) => lines.length > 1);
}

/**
 * Where rulings enclose a whole body of unruled rows (common in reports: a ruled header, a ruled
 * frame, the body set line by line), splits that grid row at the text lines the columns share.
 */
export function splitUnruledRows(grid: LatticeGrid, glyphs: Glyph[]): LatticeGrid {
  const { columnEdges, rowEdges } = grid;
  const rows = rowEdges.length - 1;
  const left = columnEdges[0] ?? 0;
  const right = columnEdges[columnEdges.length - 1] ?? 0;
  const perRow: Glyph[][] = Array.from({ length: rows }, () => []);
  // Turned text (a label set upright beside the rows) has no lines the rows share: it is left out
  // of the lines, and its area keeps its span.
  const turned: Glyph[] = [];
  for (const g of glyphs) {
    if (isBlank(g)) continue;
    const cx = (g.box.x0 + g.box.x1) / 2;
    const cy = (g.box.y0 + g.box.y1) / 2;
    if (cx < left || cx > right || cy < (rowEdges[0] ?? 0) || cy > (rowEdges[rows] ?? 0)) continue;
    if (g.rotation === 0) perRow[indexIn(rowEdges, cy)]?.push(g);
    else turned.push(g);
  }
  const owner = areaOwners(grid.areas, rows, columnEdges.length - 1);
  const areaOf = (g: Glyph) =>
    grid.areas[
      owner[indexIn(rowEdges, (g.box.y0 + g.box.y1) / 2)]?.[
        indexIn(columnEdges, (g.box.x0 + g.box.x1) / 2)
      ] ?? -1
    ];
  const turnedAreas = new Set(turned.map(areaOf));
  const extra = new Map<number, number[]>();
  // Areas reaching down from a band above into a band that is split, with text in it: a label
  // column ruled only around the whole table, beside a body set line by line.
  const reaching = new Set<Area>();
  const cellsOf = perRow.map((band, r) => glyphsByArea(band, r, grid, owner));
  const centresOf = perRow.map(lineCentres);
  // Rows the rulings already part, each a row of wrapped cells: where several are, so is this one.
  const wrapped = perRow.map((band, r) => r > 0 && wrappedRow(band, centresOf[r] ?? [], cellsOf[r]));
  const rowsRuled = wrapped.filter(Boolean).length >= minWrappedRows;
  perRow.forEach((band, r) => {
    const byArea = cellsOf[r];
    if (byArea === undefined) return;
    // A first row under more rows is a header: its wrapped lines belong together.
    if (r === 0 && rows > 1) return;
    if (rowsRuled && wrapped[r]) return;
    const centres = centresOf[r] ?? [];
    const cellLines = [...byArea.values()].map((gs) => lineCentres(gs));
    const counts = cellLines.map((lines) => lines.length);
    // Two lines are two rows only when three cells or more each carry both, two of them figures: a
    // ruled row's wrapped cells rarely all wrap alike, and a header's two lines ("to air / kg/year")
    // are words.
    const twoRows =
      centres.length === 2 &&
      counts.length >= 3 &&
      counts.every((n) => n === 2) &&
      [...byArea.values()].filter(figuresOnly).length >= 2;
    if (centres.length < 3 && !twoRows) return;
    // An area reaching down from a band above may be cut at this band's lines only when it holds
    // lines of its own here (a label column beside the body); a header cell spanning down, one or
    // two lines, keeps the band whole. An area with no text above (a label beside the body, whose
    // column the header's rule leaves open) is the body's.
    const textAbove = (area: Area) => cellsOf.slice(area.row, r).some((cells) => cells?.has(area));
    for (const [area, glyphsIn] of byArea)
      if (area.row < r && textAbove(area) && lineCentres(glyphsIn).length < minReachingLines) return;
    // Split only where the lines are rows: at least two cells carry every one of the band's lines (a
    // header's wrapped cells, centred at different heights, never all line up), or cells of several
    // lines leave some of the band's lines out in the middle (values beside a label column that has
    // group headings between them), which wrapped text, filling its lines from the top, never does.
    if (counts.filter((n) => n > 1).length < 0.6 * counts.length) return;
    const everyLine = counts.filter((n) => n === centres.length).length >= 2;
    const skipsLines = (lines: number[]) =>
      lines.length > 1 &&
      lines.length < centres.length &&
      lines.some((y, i) => !near(y, centres[i] ?? y, band));
    // One cell with a line on every row beside one that skips rows (a value on two lines beside labels
    // on one) is rows too: wrapped cells never leave a gap above their last line.
    const skipping = cellLines.filter(skipsLines).length;
    const besideFull = skipping >= 1 && counts.some((n) => n === centres.length);
    if (!everyLine && skipping < 2 && !besideFull) return;
    // Each cell's lines, read once for all the band's cuts.
    const linesByArea = new Map([...byArea].map(([area, gs]) => [area, textLines(gs)]));
    const cuts = centres.slice(1).flatMap((c, i) => {
      const above = centres[i] ?? c;
      return wrapsOn(linesByArea, columnEdges, above, c, band) ? [] : [(c + above) / 2];
    });
    if (!cuts.length) return;
    extra.set(r, cuts);
    for (const area of byArea.keys()) if (area.row < r) reaching.add(area);
  });
  if (!extra.size) return grid;
  const newEdges: number[] = [];
  const shift: number[] = [];
  for (let r = 0; r < rows; r++) {
    shift.push(newEdges.length);
    newEdges.push(rowEdges[r] ?? 0, ...(extra.get(r) ?? []));
  }
  newEdges.push(rowEdges[rows] ?? 0);
  shift.push(newEdges.length - 1);
  const areas: Area[] = [];
  for (const a of grid.areas) {
    const start = shift[a.row] ?? 0;
    const end = shift[a.row + a.rowSpan] ?? start + 1;
    const keepsSpan = turnedAreas.has(a) && !cellsOf.some((cells) => cells?.has(a));
    if ((!extra.has(a.row) && !reaching.has(a)) || keepsSpan) {
      areas.push({ ...a, row: start, rowSpan: end - start });
      continue;
    }
    // One area per line of each split band it has text in; the rows between such bands, above or
    // below them (past a ruling that ends part-way across), stay one area each.
    let from = start;
    for (let r = a.row; r < a.row + a.rowSpan; r++) {
      if (!extra.has(r) || (r !== a.row && !reaching.has(a))) continue;
      const bandStart = shift[r] ?? from;
      const bandEnd = shift[r + 1] ?? end;
      if (bandStart > from) areas.push({ ...a, row: from, rowSpan: bandStart - from });
      for (let line = bandStart; line < bandEnd; line++) areas.push({ ...a, row: line, rowSpan: 1 });
      from = bandEnd;
    }
    if (end > from) areas.push({ ...a, row: from, rowSpan: end - from });
  }
  return { columnEdges, rowEdges: newEdges, areas };
}
