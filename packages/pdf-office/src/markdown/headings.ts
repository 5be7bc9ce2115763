import type { Mupdf } from "@octavo/mupdf";
import { bodySizeOf, type Draft } from "./draft.js";

/** An outline entry that points into the document. */
export interface OutlineEntry {
  title: string;
  /** Zero-based. */
  page: number;
  /** 0 for the top level. */
  depth: number;
}

/** A bound on the entries read, whatever the file claims: a hostile outline can hold millions. */
const maxOutlineEntries = 10_000;
const maxDepth = 6;
/** A heading set larger than this times the body size stands out by its size alone. */
const largerThanBody = 1.12;
/** The space under a heading in the body size, in ems, below which it is its paragraph's run-in label. */
const runInGap = 0.6;
const romanNumeralAlone = /^\(?[ivxlcdm]{1,7}[.)]$/iu;
/** One word and a colon ("Beweis:", "Proof:", "Note:"): the label of what follows, not its title. */
const labelWord = /^\p{L}+:$/u;
/** A form's blank to fill in ("NAME: ________") and an equation's signs are not a title's. */
const formBlank = /_{4,}/u;
const equation = /[=∑∏∫√⎡⎣⎤⎦⎢⎥]/u;
/** A table of contents' leader (". . . . ", "………"), and one before its page number. */
const dotLeader = /(?:\.\s?|…){4,}/u;
const leaderBeforeNumber = /(?:\.\s?|…){4,}\s*[\divxlc]+\b/iu;

/** The document's outline as a flat list in order, or none when it has none or it cannot be read. */
export function readOutline(doc: Mupdf.PDFDocument): OutlineEntry[] {
  type Item = NonNullable<ReturnType<Mupdf.PDFDocument["loadOutline"]>>[number];
  let items: Item[];
  try {
    items = doc.loadOutline() ?? [];
  } catch {
    return [];
  }
  const entries: OutlineEntry[] = [];
  const visit = (list: Item[], depth: number): void => {
    for (const item of list) {
      if (entries.length >= maxOutlineEntries) return;
      const title = item.title?.trim() ?? "";
      if (title !== "" && item.page !== undefined && item.page >= 0)
        entries.push({ title, page: item.page, depth });
      if (item.down !== undefined && depth + 1 < 64) visit(item.down, depth + 1);
    }
  };
  visit(items, 0);
  return entries;
}

/**
 * Decides which blocks are headings and their levels. The outline, where the PDF has one, names its
 * headings and their depth; the rest come from the font hierarchy: each distinct size (bold before
 * regular at one size) of the heading-like blocks is a level, the largest first.
 */
export function assignHeadings(drafts: Draft[], outline: OutlineEntry[]): void {
  const fromOutline = matchOutline(drafts, outline);
  const body = bodySizeOf(drafts);
  const contents = contentsEntrySizes(drafts);
  const candidates = drafts.filter(
    (draft, index) =>
      draft.headingLike &&
      !fromOutline.has(draft) &&
      isHeadingType(draft) &&
      standsOut(drafts, index, body) &&
      draft.size >= largerThanBody * (contents.get(draft.pageIndex) ?? 0) &&
      plausibleHeading(draft),
  );
  const styles = [...new Set(candidates.map(styleKey))].sort(byProminence);
  // The outline's levels sit above the font levels only where the outline is used for some headings.
  const outlineDepth = fromOutline.size > 0 ? Math.max(...[...fromOutline.values()]) : 0;
  for (const draft of candidates) {
    const rank = styles.indexOf(styleKey(draft));
    const level = Math.min(maxDepth, outlineDepth > 0 ? Math.max(outlineDepth, rank + 1) : rank + 1);
    draft.element.type = "heading";
    draft.element.level = level;
  }
  for (const [draft, level] of fromOutline) {
    draft.element.type = "heading";
    draft.element.level = level;
  }
}

function isHeadingType(draft: Draft): boolean {
  return draft.element.type === "paragraph" || draft.element.type === "formula";
}

/**
 * Larger than the document's body text, or bold or italic in its size with space under it. The layout
 * judges a block against its own page's body text, which a page of small-print tables takes for its
 * body: against the document's, a regular line in the body size is never a heading. A bold line in the
 * body size followed by its text at the usual line spacing is the run-in label of that paragraph
 * ("Definition 1", "Beweis:"), as a LaTeX theorem sets it; one word and a colon in the body size is
 * such a label even with space under it.
 */
function standsOut(drafts: Draft[], index: number, body: number): boolean {
  const draft = drafts[index] as Draft;
  if (draft.size >= largerThanBody * body) return true;
  if (labelWord.test(draft.element.text.trim())) return false;
  return (draft.bold || draft.italic) && setApart(drafts, index);
}

/** Space under the block before the next one on its page; the last block of a page has nothing to tell. */
function setApart(drafts: Draft[], index: number): boolean {
  const draft = drafts[index] as Draft;
  for (let next = index + 1; next < drafts.length; next += 1) {
    const other = drafts[next] as Draft;
    if (other.pageIndex !== draft.pageIndex) return true;
    if (other.box.y0 < draft.box.y1 - 1) continue;
    return other.box.y0 - draft.box.y1 >= runInGap * draft.size;
  }
  return true;
}

/**
 * The pages that are a table of contents (three or more blocks with a dot leader before a page
 * number), each with the size its entries are set in: there, the chapter lines ("1 Topologische
 * Grundbegriffe", "CAPÍTULO 1") are entries too, and only what is set larger (its title) heads.
 */
function contentsEntrySizes(drafts: Draft[]): Map<number, number> {
  const entries = Map.groupBy(
    drafts.filter((draft) => leaderBeforeNumber.test(draft.element.text)),
    (draft) => draft.pageIndex,
  );
  const sizes = new Map<number, number>();
  for (const [page, onPage] of entries) {
    if (onPage.length >= 3) sizes.set(page, Math.max(...onPage.map((draft) => draft.size)));
  }
  return sizes;
}

/**
 * A heading has words (not a drop cap, not a lone "IV." cut from its title, not a contents line with
 * its dot leader, a form's blank or an equation) and is short: no sentence of more than twenty words, nor a
 * longer line that ends as a sentence or leads into what follows ("…are appropriate when:").
 */
function plausibleHeading(draft: Draft): boolean {
  const text = draft.element.text.trim();
  if ((text.match(/\p{L}/gu)?.length ?? 0) < 2 || text.length > 200 || /[,;]$/.test(text)) return false;
  if (romanNumeralAlone.test(text) || dotLeader.test(text) || formBlank.test(text) || equation.test(text))
    return false;
  if (text.split(/\s+/).length > 20) return false;
  return !(text.length > 60 && /[.:]$/.test(text));
}

/**
 * Each outline entry is matched to a block on its page (or the next: many outlines point at the top
 * of the page before a heading that opens at the bottom) whose text is the title.
 */
function matchOutline(drafts: Draft[], outline: OutlineEntry[]): Map<Draft, number> {
  const matched = new Map<Draft, number>();
  if (outline.length === 0) return matched;
  const byPage = new Map<number, Draft[]>();
  for (const draft of drafts) {
    if (!isHeadingType(draft) && draft.element.type !== "heading") continue;
    const list = byPage.get(draft.pageIndex) ?? [];
    list.push(draft);
    byPage.set(draft.pageIndex, list);
  }
  for (const entry of outline) {
    const title = normalised(entry.title);
    if (title === "") continue;
    for (const page of [entry.page, entry.page + 1]) {
      const found = (byPage.get(page) ?? []).find(
        (draft) => !matched.has(draft) && sameTitle(normalised(draft.element.text), title),
      );
      if (found !== undefined) {
        matched.set(found, Math.min(maxDepth, entry.depth + 1));
        break;
      }
    }
  }
  return matched;
}

/** The same title, or one of them is the other with a number or label in front ("3.2 Results"). */
function sameTitle(text: string, title: string): boolean {
  if (text === title) return true;
  if (text.length > 3 * title.length + 10) return false;
  const [shorter, longer] = text.length < title.length ? [text, title] : [title, text];
  return (
    shorter.length >= 4 &&
    longer.endsWith(shorter) &&
    /^[\p{N}\p{P}\s]*\p{L}{0,12}[\p{N}\p{P}\s]*$/u.test(longer.slice(0, -shorter.length))
  );
}

function normalised(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s.:·-]+|[\s.:·-]+$/g, "");
}

function styleKey(draft: Draft): string {
  return `${draft.size}|${draft.bold ? "b" : "r"}`;
}

function byProminence(a: string, b: string): number {
  const [sizeA, weightA] = a.split("|");
  const [sizeB, weightB] = b.split("|");
  return Number(sizeB) - Number(sizeA) || (weightA === weightB ? 0 : weightA === "b" ? -1 : 1);
}
