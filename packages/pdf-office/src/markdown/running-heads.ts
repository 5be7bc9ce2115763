import type { Draft } from "./draft.js";

/** The top and bottom share of the page where running heads and footers sit. */
const band = 0.12;
/** Page numbers alone sit a little further in on some layouts (LaTeX's plain style: 0.85 of the page). */
const pageNumberBand = 0.2;

/** A page number alone: "7", "- 7 -", "Page 7", "7 of 20", "vii". */
const pageNumber = /^[-–—\s]*(page\s*)?(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|\/)\s*\d{1,5})?[-–—\s]*$/iu;

/**
 * Marks the running headers and footers: blocks in the top or bottom band of the page whose text, with
 * its digits set aside, comes back on a good share of the pages ("Annual report 2024 · page 7"), and
 * page numbers standing alone in the band. Only the document's repetition decides, never a word list,
 * so a heading that happens to sit high on one page stays a heading.
 */
export function markRunningHeads(drafts: Draft[], pageCount: number): void {
  const pagesOfKey = new Map<string, Set<number>>();
  const candidates: { draft: Draft; key: string }[] = [];
  for (const draft of drafts) {
    const position = bandOf(draft, pageNumberBand);
    if (position === undefined) continue;
    const key = keyOf(draft.element.text);
    if (key === "") continue;
    candidates.push({ draft, key });
    const pages = pagesOfKey.get(key) ?? new Set<number>();
    pages.add(draft.pageIndex);
    pagesOfKey.set(key, pages);
  }
  // Alternating left and right heads each come back on half the pages; a third leaves margin for
  // chapter openings without one.
  const needed = Math.max(2, Math.ceil(pageCount / 3));
  for (const { draft, key } of candidates) {
    const repeated =
      bandOf(draft, band) !== undefined && pageCount >= 2 && (pagesOfKey.get(key)?.size ?? 0) >= needed;
    if (!repeated && !pageNumber.test(draft.element.text.trim())) continue;
    draft.element.type = bandOf(draft, pageNumberBand) === "top" ? "header" : "footer";
    draft.headingLike = false;
  }
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
