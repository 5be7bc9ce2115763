import type { MarkdownElement, MarkdownLink } from "@octavo/contracts/markdown-document";
import type { Box } from "@octavo/layout";

/**
 * A block on its way to the output: the element it will be, and what the later, document-wide passes
 * (running heads, heading levels, paragraphs continued across columns and pages) need to know of it.
 */
export interface Draft {
  element: MarkdownElement;
  /** Zero-based page index (of its last page, for a table continued across pages). */
  pageIndex: number;
  box: Box;
  pageHeight: number;
  /** The size most of its characters are set in, in points. */
  size: number;
  /** Most of its characters are bold. */
  bold: boolean;
  /** Most of its characters are italic. */
  italic: boolean;
  /** Its text came from OCR: sizes jitter, so lines of one paragraph may have been cut apart. */
  recognised: boolean;
  /** The layout found it heading-like (larger, or bold and short); the heading pass decides. */
  headingLike: boolean;
  /** A list item's left edge and marker, while the list pass builds the nested list. */
  listItem?: { marker: string; left: number };
  /** A table's column edges, to find its rest on the next page. */
  columnEdges?: number[];
  /** A figure's pixels, when figures are written as files. */
  figure?: { data: Uint8Array; mime: string };
  links: MarkdownLink[];
}

export function unionBox(a: Box, b: Box): Box {
  return {
    x0: Math.min(a.x0, b.x0),
    y0: Math.min(a.y0, b.y0),
    x1: Math.max(a.x1, b.x1),
    y1: Math.max(a.y1, b.y1),
  };
}

export function bboxOf(box: Box): number[] {
  const round = (value: number) => Math.round(value * 10) / 10;
  return [round(box.x0), round(box.y0), round(box.x1), round(box.y1)];
}

/** The size most characters of the drafts' paragraphs and list items are set in: their body size. */
export function bodySizeOf(drafts: Draft[]): number {
  const weights = new Map<number, number>();
  for (const draft of drafts) {
    if (draft.element.type !== "paragraph" && draft.element.type !== "list") continue;
    weights.set(draft.size, (weights.get(draft.size) ?? 0) + draft.element.text.length);
  }
  let best = 0;
  let bestWeight = 0;
  for (const [size, weight] of weights) {
    if (weight > bestWeight) [best, bestWeight] = [size, weight];
  }
  return best;
}
