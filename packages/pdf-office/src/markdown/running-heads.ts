import type { Draft } from "./draft.js";

/** The top and bottom share of the page where running heads and footers sit. */
const band = 0.12;
/** Page numbers alone sit a little further in on some layouts (LaTeX's plain style: 0.85 of the page). */
const pageNumberBand = 0.2;
/**
 * A head that belongs to one part of a document (an appendix's "Handbook … Attachment A", a
 * questionnaire's own footer) comes back on the pages around it rather than on a share of the whole:
 * a block is a running head too when blocks like it sit in the same place on at least two of the
 * pages within this many pages of it (alternating left and right heads come back every other page).
 */
const neighbourhood = 4;
const neighboursNeeded = 2;

/** A page number alone: "7", "- 7 -", "Page 7", "7 of 20", "vii". */
const pageNumber = /^[-–—\s]*(page\s*)?(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|\/)\s*\d{1,5})?[-–—\s]*$/iu;

interface Candidate {
  draft: Draft;
  key: string;
  /** Its words of two letters or more: "Attachment A" and "Attachment B" have the same. */
  words: string;
  band: "top" | "bottom";
}

/**
 * Marks the running headers and footers: blocks in the top or bottom band of the page whose text, with
 * its digits set aside, comes back on a good share of the pages ("Annual report 2024 · page 7") or,
 * its words the same, on the pages around it ("… Attachment A", "… Attachment B"), and page numbers
 * standing alone in the band. Only the document's repetition decides, never a word list, so a heading
 * that happens to sit high on one page stays a heading.
 */
export function markRunningHeads(drafts: Draft[], pageCount: number): void {
  const pagesOfKey = new Map<string, Set<number>>();
  const inNumberBand: Draft[] = [];
  const inBand: Candidate[] = [];
  for (const draft of drafts) {
    if (bandOf(draft, pageNumberBand) === undefined) continue;
    const key = keyOf(draft.element.text);
    if (key === "") continue;
    inNumberBand.push(draft);
    const pages = pagesOfKey.get(key) ?? new Set<number>();
    pages.add(draft.pageIndex);
    pagesOfKey.set(key, pages);
    const position = bandOf(draft, band);
    if (position !== undefined) inBand.push({ draft, key, words: wordsOf(key), band: position });
  }
  // Alternating left and right heads each come back on half the pages; a third leaves margin for
  // chapter openings without one.
  const needed = Math.max(2, Math.ceil(pageCount / 3));
  const inBandByPage = Map.groupBy(inBand, (candidate) => candidate.draft.pageIndex);
  const running = new Set<Draft>();
  for (const candidate of inBand) {
    const repeated = pageCount >= 2 && (pagesOfKey.get(candidate.key)?.size ?? 0) >= needed;
    if (repeated || alikeOnNeighbouringPages(candidate, inBandByPage)) running.add(candidate.draft);
  }
  for (const draft of inNumberBand) {
    if (!running.has(draft) && !pageNumber.test(draft.element.text.trim())) continue;
    draft.element.type = bandOf(draft, pageNumberBand) === "top" ? "header" : "footer";
    draft.headingLike = false;
  }
}

function alikeOnNeighbouringPages(candidate: Candidate, inBandByPage: Map<number, Candidate[]>): boolean {
  let pages = 0;
  for (let distance = -neighbourhood; distance <= neighbourhood; distance += 1) {
    if (distance === 0) continue;
    const others = inBandByPage.get(candidate.draft.pageIndex + distance) ?? [];
    if (others.some((other) => other.band === candidate.band && alike(candidate, other))) pages += 1;
  }
  return pages >= neighboursNeeded;
}

/**
 * Set the same way in the same place, with the same words: a section's own heading at the top
 * of its first page repeats the running head above it, but lower and larger, and stays a heading.
 */
function alike(a: Candidate, b: Candidate): boolean {
  const size = Math.max(a.draft.size, b.draft.size, 1);
  if (Math.abs(a.draft.size - b.draft.size) > 0.1 * size || a.draft.bold !== b.draft.bold) return false;
  if (Math.abs(a.draft.box.y0 - b.draft.box.y0) > 0.5 * size) return false;
  return a.words !== "" && a.words === b.words;
}

function wordsOf(key: string): string {
  return (key.match(/\p{L}{2,}/gu) ?? []).join(" ");
}

function bandOf(draft: Draft, share: number): "top" | "bottom" | undefined {
  const type = draft.element.type;
  if (type !== "paragraph" && type !== "caption" && type !== "footnote" && type !== "formula")
    return undefined;
  if (draft.element.text.length > 200) return undefined;
  if (draft.box.y1 <= share * draft.pageHeight) return "top";
  if (draft.box.y0 >= (1 - share) * draft.pageHeight) return "bottom";
  return undefined;
}

/** The text with numbers set aside, so "Page 3 of 9" and "Page 4 of 9" are the same head. */
function keyOf(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}
