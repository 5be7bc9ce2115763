import type { Mupdf as mupdf } from "@octavo/mupdf";
import { addUnruledColumns, splitUnruledColumns } from "./column-split.js";
import type { Glyph } from "./glyphs.js";
import { splitGroupHeaders } from "./group-headers.js";
import { type LatticeGrid, latticeGrids } from "./lattice.js";
import { splitUnruledRows } from "./row-split.js";
import { collectRulings, type Point, type Rulings, type Segment } from "./rulings.js";
import { bridgeRuleGaps, mergeRulings, rulingNetworks } from "./segments.js";
import { filledShare, pourIntoGrid } from "./table-build.js";
import type { Box, Table } from "./types.js";

function inside(inner: Box, outer: Box): boolean {
  return (
    inner.x0 >= outer.x0 - 2 &&
    inner.x1 <= outer.x1 + 2 &&
    inner.y0 >= outer.y0 - 2 &&
    inner.y1 <= outer.y1 + 2
  );
}

function gridArea(grid: LatticeGrid): number {
  const width = (grid.columnEdges.at(-1) ?? 0) - (grid.columnEdges[0] ?? 0);
  return width * ((grid.rowEdges.at(-1) ?? 0) - (grid.rowEdges[0] ?? 0));
}

function boundsOf(r: Rulings): Box {
  const all = [...r.horizontal, ...r.vertical];
  return {
    x0: Math.min(...all.map((s) => s.x0)),
    y0: Math.min(...all.map((s) => s.y0)),
    x1: Math.max(...all.map((s) => s.x1)),
    y1: Math.max(...all.map((s) => s.y1)),
  };
}

/** How far (in body sizes) the rules of a table ruled across may lie above and below a row of it. */
const rowsToRule = 10;

/**
 * Whether drawn rules across the whole width of a box lie near above and below it, its own frame
 * aside: then a one-row grid there is a shaded row of a table ruled across only (booktabs'
 * \rowcolor), not a table.
 */
function betweenRules(box: Box, horizontal: Segment[], bodySize: number): boolean {
  const across = horizontal.filter((h) => h.x0 <= box.x0 + 2 && h.x1 >= box.x1 - 2);
  const reach = rowsToRule * bodySize;
  return (
    across.some((h) => h.y0 < box.y0 - 0.5 && h.y0 > box.y0 - reach) &&
    across.some((h) => h.y0 > box.y1 + 0.5 && h.y0 < box.y1 + reach)
  );
}

/**
 * Drawn lines, plus the edges of filled boxes outside every network of drawn lines: where lines
 * make the grid, cell backgrounds (inset, or one per text line) would only add false edges.
 */
function tableRulings(lines: Rulings, boxEdges: Rulings): Rulings {
  const frames = rulingNetworks(lines, 3).map(boundsOf);
  const outside = (s: { x0: number; y0: number; x1: number; y1: number }) =>
    !frames.some((f) => s.x0 >= f.x0 - 3 && s.x1 <= f.x1 + 3 && s.y0 >= f.y0 - 3 && s.y1 <= f.y1 + 3);
  return mergeRulings({
    horizontal: [...lines.horizontal, ...boxEdges.horizontal.filter(outside)],
    vertical: [...lines.vertical, ...boxEdges.vertical.filter(outside)],
  });
}

/**
 * Tables drawn with rulings. A grid counts as a table when at least two of its cells, in two
 * columns, hold text and text fills a fair share of them (bar charts and framed boxes do not).
 */
export function ruledTables(
  page: mupdf.Page,
  glyphs: Glyph[],
  bodySize: number,
): { tables: Table[]; rest: Glyph[]; slants: Point[]; acrossRules: Segment[] } {
  const drawn = collectRulings(page);
  const lines = bridgeRuleGaps(mergeRulings(drawn.lines));
  const rulings = tableRulings(lines, drawn.boxEdges);
  // Largest first, so a table nested in another's cell stays that cell's text.
  const grids = latticeGrids(rulings).sort((a, b) => gridArea(b) - gridArea(a));
  const tables: Table[] = [];
  let rest = glyphs;
  for (const grid of grids) {
    const columns = splitUnruledColumns(
      addUnruledColumns(splitUnruledColumns(splitUnruledRows(grid, rest), rest), rest),
      rest,
    );
    // Rows again: a band's lines are told from wrapped text by how the columns just found carry them.
    const refined = splitUnruledColumns(splitUnruledRows(splitGroupHeaders(columns, rest), rest), rest);
    const { table, taken } = pourIntoGrid(
      rest,
      refined.columnEdges,
      refined.rowEdges,
      refined.areas,
      true,
      bodySize,
    );
    if (tables.some((t) => inside(table.box, t.box))) continue;
    const filled = table.cells.filter((c) => c.text !== "");
    // A grid with text in one column only is a chart's gridlines or a framed list, not a table.
    const columnsWithText = new Set(filled.map((c) => c.col)).size;
    if (filled.length < 2 || columnsWithText < 2 || filledShare(table) < 0.2) continue;
    if (refined.rowEdges.length === 2 && betweenRules(table.box, lines.horizontal, bodySize)) continue;
    tables.push(table);
    rest = rest.filter((g) => !taken.has(g));
  }
  // Horizontal rules no grid took: those of tables ruled across only.
  const acrossRules = lines.horizontal.filter((rule) => !tables.some((t) => inside(rule, t.box)));
  return { tables, rest, slants: drawn.slants, acrossRules };
}
