import { readFileSync } from "node:fs";
import { corpusPath, readManifest } from "@octavo/testing";
import type { Box } from "../src/index.js";
import { parseCsv } from "./csv.js";

export type TableKind = "ruled" | "borderless" | "unlabelled";

export interface TruthTable {
  pdf: string;
  csv: string;
  kind: TableKind;
  /** Another tool's output (camelot's reference CSVs) rather than independent ground truth. */
  toolOutput: boolean;
  /** Zero-based page the truth covers. */
  page: number;
  /** The area the truth covers, when the notes restrict it. */
  area?: Box;
  rows: string[][];
}

/** Ruled or borderless as the corpus notes say ("stream"/"unruled" before "ruled"/"lattice"). */
function kindOf(notes: string): TableKind {
  if (/stream|unruled|borderless|text columns/i.test(notes)) return "borderless";
  if (/lattice|ruled/i.test(notes)) return "ruled";
  return "unlabelled";
}

function unionBoxes(boxes: Box[]): Box {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

function areasOf(notes: string, size: { width: number; height: number }): Box[] {
  // tabula's areas are (top, left, bottom, right), in points or as percentages of the page.
  const points = /area \(([\d.]+),([\d.]+),([\d.]+),([\d.]+)\)/.exec(notes);
  if (points) {
    const [t, l, b, r] = points.slice(1).map(Number);
    return [{ x0: l ?? 0, y0: t ?? 0, x1: r ?? 0, y1: b ?? 0 }];
  }
  return [...notes.matchAll(/%([\d.]+),([\d.]+),([\d.]+),([\d.]+)/g)].map((m) => {
    const [t, l, b, r] = m.slice(1).map(Number);
    return {
      x0: ((l ?? 0) * size.width) / 100,
      y0: ((t ?? 0) * size.height) / 100,
      x1: ((r ?? 0) * size.width) / 100,
      y1: ((b ?? 0) * size.height) / 100,
    };
  });
}

/**
 * Every table the corpus gives a CSV truth for, with the page and area it covers. Image-only
 * PDFs are left out: they have no text layer for layout analysis to find (OCR comes first).
 */
export function truthTables(
  pageSize: (pdf: string, page: number) => { width: number; height: number },
): TruthTable[] {
  const manifest = readManifest();
  const notesOf = new Map(manifest.map((e) => [e.path, e.notes]));
  const out: TruthTable[] = [];
  for (const entry of manifest) {
    if (entry.category !== "tables" || !entry.path.endsWith(".pdf") || /image-only/i.test(entry.notes))
      continue;
    const csvs = (/ground_truth=([^;]*)/.exec(entry.notes)?.[1] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.endsWith(".csv"));
    for (const csv of csvs) {
      const own = notesOf.get(csv) ?? "";
      const page = Number(/on page (\d+)/.exec(own)?.[1] ?? /\bpage (\d+)/.exec(entry.notes)?.[1] ?? 1) - 1;
      const areas = areasOf(entry.notes, pageSize(entry.path, page));
      // "truth for areas A and B": the CSV holds both areas' rows.
      const area = areas.length ? unionBoxes(areas) : undefined;
      const table: TruthTable = {
        pdf: entry.path,
        csv,
        kind: kindOf(entry.notes),
        toolOutput: /not independent ground truth/i.test(own),
        page,
        rows: parseCsv(readFileSync(corpusPath(csv), "utf8")),
      };
      if (area) table.area = area;
      out.push(table);
    }
  }
  return out;
}
