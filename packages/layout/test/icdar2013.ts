import { readFileSync } from "node:fs";
import type { Mupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { XMLParser } from "fast-xml-parser";
import type { Box } from "../src/index.js";
import { collectRulings, type Segment } from "../src/rulings.js";

/** One table of the ICDAR 2013 ground truth: its cells, on one page (a region) or more. */
export interface IcdarTable {
  document: string;
  id: number;
  regions: IcdarRegion[];
}

export interface IcdarRegion {
  /** Zero-based page. */
  page: number;
  /** The union of the cells' boxes, in MuPDF's page space (origin top left). */
  box: Box;
  cells: string[];
}

interface XmlCell {
  "bounding-box": { x1: string; x2: string; y1: string; y2: string };
  content?: string | number;
}
interface XmlRegion {
  page: string;
  cell: XmlCell | XmlCell[];
}
interface XmlTable {
  id: string;
  region: XmlRegion | XmlRegion[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", parseTagValue: false });
const list = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * The tables of `icdar2013_<document>-str.xml`. Its boxes are in PDF space (origin bottom left); they
 * are turned into MuPDF's with each page's height.
 */
export function icdarTables(document: string, pageHeight: (page: number) => number): IcdarTable[] {
  const xml = parser.parse(readFileSync(corpusPath(`tables/icdar2013_${document}-str.xml`), "utf8"));
  return list<XmlTable>(xml.document.table).map((table) => ({
    document,
    id: Number(table.id),
    regions: list(table.region).map((region) => {
      const page = Number(region.page) - 1;
      const height = pageHeight(page);
      const cells = list(region.cell);
      const boxes = cells.map(({ "bounding-box": b }) => ({
        x0: Number(b.x1),
        x1: Number(b.x2),
        y0: height - Number(b.y2),
        y1: height - Number(b.y1),
      }));
      return {
        page,
        box: {
          x0: Math.min(...boxes.map((b) => b.x0)),
          y0: Math.min(...boxes.map((b) => b.y0)),
          x1: Math.max(...boxes.map((b) => b.x1)),
          y1: Math.max(...boxes.map((b) => b.y1)),
        },
        cells: cells.map((cell) => String(cell.content ?? "")),
      };
    }),
  }));
}

/** How far beyond the cells' boxes a ruling still belongs to the table (a frame drawn around it). */
const rulingMarginPt = 6;

/**
 * True when no line is drawn within the table's area: no stroked line and no thin filled box
 * (`collectRulings`' lines; the edges of shaded cells do not count). A table with a single rule under
 * its header counts as ruled.
 */
export function hasNoRulings(page: Mupdf.Page, box: Box): boolean {
  const { lines } = collectRulings(page);
  const area = {
    x0: box.x0 - rulingMarginPt,
    y0: box.y0 - rulingMarginPt,
    x1: box.x1 + rulingMarginPt,
    y1: box.y1 + rulingMarginPt,
  };
  const inside = (s: Segment) =>
    Math.max(s.x0, s.x1) >= area.x0 &&
    Math.min(s.x0, s.x1) <= area.x1 &&
    Math.max(s.y0, s.y1) >= area.y0 &&
    Math.min(s.y0, s.y1) <= area.y1;
  return ![...lines.horizontal, ...lines.vertical].some(inside);
}
