/**
 * The page model that layout analysis produces and the PDF → Word / PowerPoint / Excel writers
 * consume. Coordinates are PDF points in MuPDF's page space: origin at the top-left of the page's
 * visible box, y growing downwards.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface FontStyle {
  /** The PDF font name without its subset prefix, e.g. "Helvetica-Bold". */
  name: string;
  /** A family a word processor will know: "Times New Roman", "Arial", "Courier New" or the font's own. */
  family: string;
  /** In points. */
  size: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

/** A run of text in one font, size and colour on one line. */
export interface TextSpan {
  text: string;
  box: Box;
  font: FontStyle;
  /** "#RRGGBB". */
  color: string;
}

export interface TextLine {
  box: Box;
  /** The y of the text baseline. */
  baseline: number;
  spans: TextSpan[];
  /** Writing direction in degrees; 0 for ordinary horizontal text. */
  rotation: number;
}

export interface Paragraph {
  kind: "paragraph";
  box: Box;
  lines: TextLine[];
  align: "left" | "center" | "right" | "justify";
  /** First-line indent relative to the paragraph's left edge, in points (negative for hanging). */
  firstLineIndent: number;
  /** Distance from the line above's bottom to this paragraph's top, in points. */
  spaceBefore: number;
  /** Line pitch (baseline to baseline), in points; the font size's for a single line. */
  lineHeight: number;
  /** Set when the paragraph looks like a list item; the marker stays in the text. */
  listMarker?: string;
  /** Set when the paragraph looks like a heading (larger or bold and short). 1 is the largest. */
  headingLevel?: 1 | 2 | 3;
}

export interface ImageBlock {
  kind: "image";
  box: Box;
  /** PNG or JPEG bytes as they will be embedded; empty when the analysis was asked for boxes only. */
  data: Uint8Array;
  mime: "image/png" | "image/jpeg";
  /** Pixel size of `data`. */
  width: number;
  height: number;
}

export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  box: Box;
  /** The cell's text with lines joined by "\n". */
  text: string;
  paragraphs: Paragraph[];
}

export interface Table {
  kind: "table";
  box: Box;
  /** true when found from drawn rulings, false when found from the alignment of text. */
  ruled: boolean;
  /** x positions of the column boundaries, left to right (cols + 1 values). */
  columnEdges: number[];
  /** y positions of the row boundaries, top to bottom (rows + 1 values). */
  rowEdges: number[];
  /** Only the top-left cell of a merged area is listed; every grid position is covered by one cell. */
  cells: TableCell[];
}

export type Block = Paragraph | ImageBlock | Table;

export interface PageLayout {
  /** Zero-based. */
  index: number;
  width: number;
  height: number;
  /** The page's /Rotate, in degrees; the model is already in the rotated (visible) space. */
  rotation: number;
  /** Distances from each page edge to the nearest content, in points. */
  margins: { top: number; right: number; bottom: number; left: number };
  /** Text columns found on the page, left to right; one column for a plain page. */
  columns: Box[];
  /** Content in reading order: by column, top to bottom, tables and images in place. */
  blocks: Block[];
  /** false when the page has no extractable text (a scan, or vector-drawn text). */
  hasText: boolean;
}

export interface DocumentLayout {
  pages: PageLayout[];
}
