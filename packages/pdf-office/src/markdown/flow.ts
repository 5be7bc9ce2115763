import type { MarkdownElement, MarkdownListItem } from "@octavo/contracts/markdown-document";
import { appendTableRows, continuedTable } from "./continued-tables.js";
import { isRightToLeft } from "./direction.js";
import { bboxOf, type Draft, unionBox } from "./draft.js";

/** Left edges of list items closer than this (points) are one nesting level. */
const levelTolerance = 4;

/**
 * The drafts as the document's elements: consecutive list items made one nested list, consecutive code
 * lines one block, and a paragraph or a table that a column or page break cut in two joined again.
 * Running heads are dropped unless kept.
 */
export function flowElements(drafts: Draft[], keepRunningHeads: boolean): Draft[] {
  const kept = keepRunningHeads
    ? drafts
    : drafts.filter((draft) => draft.element.type !== "header" && draft.element.type !== "footer");
  const out: Draft[] = [];
  for (let index = 0; index < kept.length; index += 1) {
    const draft = kept[index] as Draft;
    const previous = out[out.length - 1];
    const continued = continuedTable(out, draft);
    if (draft.listItem !== undefined) {
      let end = index;
      while (sameList(draft, kept[end + 1])) end += 1;
      out.push(listOf(kept.slice(index, end + 1)));
      index = end;
    } else if (
      draft.element.type === "code" &&
      previous?.element.type === "code" &&
      previous.pageIndex === draft.pageIndex
    ) {
      previous.element.text += `\n${draft.element.text}`;
    } else if (continued !== undefined) {
      appendTableRows(continued, draft);
    } else if (previous !== undefined && recognisedLines(previous, draft)) {
      // A right-to-left line's next word stands to the left of the last (layout reads left to right).
      const [first, second] =
        isRightToLeft(previous.element.text) && draft.box.x0 >= previous.box.x1 - 2
          ? [draft, previous]
          : [previous, draft];
      previous.element.text = `${first.element.text} ${second.element.text}`;
      previous.box = unionBox(previous.box, draft.box);
      previous.element.bbox = bboxOf(previous.box);
    } else {
      const cut = cutParagraph(out, draft);
      if (cut === undefined) out.push(draft);
      else {
        cut.element.text = joined(cut.element.text, draft.element.text);
        cut.links.push(...draft.links);
      }
    }
  }
  for (const draft of out) if (draft.links.length > 0) draft.element.links = draft.links;
  return out;
}

/** Nested items sit at most this far (points) right of the list's first; further is another column. */
const maxNestingIndent = 72;

function sameList(first: Draft, next: Draft | undefined): boolean {
  if (next?.listItem === undefined || first.listItem === undefined) return false;
  const indent = next.listItem.left - first.listItem.left;
  return next.pageIndex === first.pageIndex && indent > -maxNestingIndent && indent < maxNestingIndent;
}

/**
 * OCR sets each line, even each word, in its own measured size, so the layout cuts recognised
 * paragraphs at every change of size: recognised text that goes on beside the last on its line, or
 * below it in the same column without a gap, continues its paragraph while that one has not ended a
 * sentence.
 */
function recognisedLines(previous: Draft, next: Draft): boolean {
  if (!previous.recognised || !next.recognised || previous.pageIndex !== next.pageIndex) return false;
  if (previous.element.type !== "paragraph" || next.element.type !== "paragraph") return false;
  if (/[.!?:;]$/u.test(previous.element.text.trim())) return false;
  const gap = next.box.y0 - previous.box.y1;
  const overlap = Math.min(previous.box.x1, next.box.x1) - Math.max(previous.box.x0, next.box.x0);
  const below = gap > -2 && gap < 1.2 * Math.max(previous.size, next.size, 6) && overlap > 0;
  // A word OCR sized apart from the rest of its line ("This" before "is a lot of…").
  const besideOnLine =
    next.box.y0 < previous.box.y1 && next.box.y1 > previous.box.y0 && next.box.x0 >= previous.box.x1 - 2;
  return below || besideOnLine;
}

/** Blocks a paragraph may be cut by, besides a column or page break: notes, figures, running heads. */
const interruptions = new Set(["footnote", "figure", "caption", "header", "footer"]);

/**
 * The paragraph that `next` goes on from, when a column or page break cut it: it stops without closing
 * punctuation, and `next` is a paragraph in the same size that starts in lower case above it or on a
 * later page (a new column or page, not the next line of the same column). Between the two there may
 * be notes, figures, running heads or smaller print (a copyright box at the foot of a column).
 */
function cutParagraph(out: Draft[], next: Draft): Draft | undefined {
  if (next.element.type !== "paragraph" || !/^\p{Ll}/u.test(next.element.text)) return undefined;
  for (let index = out.length - 1; index >= Math.max(0, out.length - 6); index -= 1) {
    const candidate = out[index] as Draft;
    const sameSize = Math.abs(candidate.size - next.size) <= 0.5;
    if (candidate.element.type === "paragraph" && sameSize) {
      return continuesInto(candidate, next) ? candidate : undefined;
    }
    const smallPrint = candidate.element.type === "paragraph" && candidate.size < next.size - 0.5;
    if (!interruptions.has(candidate.element.type) && !smallPrint) return undefined;
  }
  return undefined;
}

function continuesInto(previous: Draft, next: Draft): boolean {
  if (/[.!?:;)\]"'”’»]$/u.test(previous.element.text.trim())) return false;
  const newPage = next.pageIndex === previous.pageIndex + 1;
  const newColumn =
    next.pageIndex === previous.pageIndex &&
    next.box.y0 < previous.box.y0 &&
    next.box.x0 > previous.box.x1 - 2;
  return newPage || newColumn;
}

function joined(before: string, after: string): string {
  if (/\p{L}-$/u.test(before)) return before.slice(0, -1) + after;
  return `${before} ${after}`;
}

function listOf(items: Draft[]): Draft {
  const lefts = clusterLefts(items.map((item) => item.listItem?.left ?? 0));
  const listItems: MarkdownListItem[] = items.map((item) => {
    const marker = item.listItem?.marker ?? "-";
    const left = item.listItem?.left ?? 0;
    const level = Math.min(6, 1 + lefts.filter((edge) => edge < left - levelTolerance).length);
    return {
      type: "list-item",
      page: item.element.page,
      bbox: item.element.bbox,
      text: item.element.text,
      marker,
      ordered: /[\p{N}\p{L}]/u.test(marker),
      level,
      ...(item.links.length > 0 ? { links: item.links } : {}),
    };
  });
  const first = items[0] as Draft;
  const box = {
    x0: Math.min(...items.map((item) => item.box.x0)),
    y0: Math.min(...items.map((item) => item.box.y0)),
    x1: Math.max(...items.map((item) => item.box.x1)),
    y1: Math.max(...items.map((item) => item.box.y1)),
  };
  const element: MarkdownElement = {
    type: "list",
    page: first.element.page,
    bbox: bboxOf(box),
    text: listItems.map((item) => `${"  ".repeat(item.level - 1)}${item.marker} ${item.text}`).join("\n"),
    items: listItems,
  };
  const { listItem: _item, ...rest } = first;
  return { ...rest, element, box, links: [] };
}

/** The distinct left edges of the items, each cluster by its leftmost member. */
function clusterLefts(lefts: number[]): number[] {
  const sorted = [...lefts].sort((a, b) => a - b);
  const clusters: number[] = [];
  for (const left of sorted) {
    const last = clusters[clusters.length - 1];
    if (last === undefined || left - last > levelTolerance) clusters.push(left);
  }
  return clusters;
}
