import type { MarkdownLink } from "@octavo/contracts/markdown-document";
import type { Box, ImageBlock, PageLayout, Paragraph, Table, TextSpan } from "@octavo/layout";
import { paragraphPieces, type StyledPiece } from "../text.js";
import { rightToLeftInReadingOrder } from "./direction.js";
import { bboxOf, bodySizeOf, type Draft } from "./draft.js";
import { withHangingMarkers } from "./hanging-markers.js";
import type { Vocabulary } from "./vocabulary.js";

/** A link on the page: its area and where it goes. */
export interface PageLink {
  box: Box;
  uri: string;
}

export interface PageContext {
  page: PageLayout;
  links: PageLink[];
  vocabulary: Vocabulary;
  /** The page's text came from OCR: sizes and fonts say nothing of headings there. */
  ocr: boolean;
  /** Keep figures' pixels (images: files). */
  keepFigures: boolean;
}

/** Images smaller than this on both sides are icons, bullets or rules, not figures. */
const minFigureSide = 24;

const captionStart =
  /^(figure|fig\.|table|tab\.|chart|exhibit|plate|image|photo|diagram|graph|map|scheme|listing)\s*[\dIVXivx]/iu;
const footnoteStart = /^(\d{1,3}|[*†‡§¶]|\(\d{1,3}\)|\[\d{1,3}\])\s*\S/u;
const mathSymbols = /[=∑∏∫√±≤≥≠≈∈∉∀∃∂∇∞→⇒↔×÷·∝⊂⊆∪∩]/u;

/** The page's blocks, in the layout's reading order, as drafts of elements. */
export function pageDrafts(context: PageContext): Draft[] {
  const { page } = context;
  rightToLeftInReadingOrder(page);
  const drafts: Draft[] = [];
  for (const block of withHangingMarkers(page.blocks)) {
    if (block.kind === "paragraph") {
      const draft = paragraphDraft(block, context);
      if (draft !== undefined) drafts.push(draft);
    } else if (block.kind === "table") {
      const draft = tableDraft(block, context);
      if (draft !== undefined) drafts.push(draft);
    } else {
      const draft = figureDraft(block, context);
      if (draft !== undefined) drafts.push(draft);
    }
  }
  markCaptions(drafts);
  const bodySize = bodySizeOf(drafts);
  numberedHeadings(drafts, bodySize);
  return withFootnotesLast(drafts, bodySize);
}

/**
 * "1. Introduction", "B. Hospice" or "IV. Results" set bold, italic or larger than the body, short and
 * not ending as a sentence, is a numbered heading, not a list item, unless items of its own list (the
 * same kind of number, the same weight) come straight before and after it; a bulleted list under it,
 * or the "1." and "2." of the section it heads, do not change that.
 */
function numberedHeadings(drafts: Draft[], bodySize: number): void {
  // Numbers, letters and roman numerals: "3.", "B.", "IV." (a bullet never heads a section).
  const numbered = (draft: Draft | undefined) =>
    draft?.listItem !== undefined && /[\p{N}\p{L}]/u.test(draft.listItem.marker);
  const digits = (draft: Draft) => /\p{N}/u.test(draft.listItem?.marker ?? "");
  const sameList = (draft: Draft, other: Draft | undefined) =>
    other !== undefined && numbered(other) && digits(other) === digits(draft) && other.bold === draft.bold;
  for (const [index, draft] of drafts.entries()) {
    const item = draft.listItem;
    if (item === undefined || !numbered(draft)) continue;
    // Inside a run of numbered items with no text between them, it is a list (of bold terms, say).
    if (sameList(draft, drafts[index - 1]) && sameList(draft, drafts[index + 1])) continue;
    const text = draft.element.text;
    const prominent = draft.bold || draft.italic || draft.size >= 1.12 * bodySize;
    // A short title may end with a colon ("G. Telemedicine:"); a sentence may not, and a title has a word
    // (an item "(i) ∅, X ∈ T" set in italic maths has none).
    const title = !/[.,;]$/.test(text) && !(text.length > 60 && text.endsWith(":")) && text.length <= 100;
    if (!prominent || !title || !/\p{L}{3}/u.test(text) || mathSymbols.test(text)) continue;
    draft.element = { ...draft.element, type: "paragraph", text: `${item.marker} ${text}` };
    delete draft.listItem;
    draft.headingLike = true;
  }
}

function paragraphDraft(paragraph: Paragraph, context: PageContext): Draft | undefined {
  const pieces = paragraphPieces(paragraph, context.ocr, context.vocabulary.keepsHyphen);
  const text = pieces.map((piece) => piece.text).join("");
  if (text.trim() === "") return undefined;
  const marker = paragraph.listMarker;
  // A number set in the regular face before a bold title ("D. Deaths") leaves the title bold.
  const style = dominantStyle(pieces[0]?.text.trim() === marker ? pieces.slice(1) : pieces);
  const base = {
    pageIndex: page(context),
    box: paragraph.box,
    pageHeight: context.page.height,
    size: style.size,
    bold: style.bold,
    italic: style.italic,
    recognised: context.ocr,
    headingLike: !context.ocr && paragraph.headingLevel !== undefined,
    links: linksIn(paragraph, context.links),
  };
  const element = { page: page(context) + 1, bbox: bboxOf(paragraph.box) };
  if (marker !== undefined && text.startsWith(marker)) {
    const itemText = text.slice(marker.length).trim();
    return {
      ...base,
      headingLike: false,
      element: { ...element, type: "list", text: itemText },
      listItem: { marker, left: paragraph.box.x0 },
    };
  }
  if (style.monospace && !context.ocr) {
    return { ...base, headingLike: false, element: { ...element, type: "code", text: codeText(paragraph) } };
  }
  if (looksLikeFormula(text)) return { ...base, element: { ...element, type: "formula", text } };
  return { ...base, element: { ...element, type: "paragraph", text } };
}

/** A code block keeps its lines and their indentation. */
function codeText(paragraph: Paragraph): string {
  const left = Math.min(...paragraph.lines.map((line) => line.box.x0));
  return paragraph.lines
    .map((line) => {
      const size = line.spans[0]?.font.size ?? 10;
      const indent = Math.max(0, Math.round((line.box.x0 - left) / (0.6 * size)));
      return (
        " ".repeat(indent) +
        line.spans
          .map((span) => span.text)
          .join("")
          .trimEnd()
      );
    })
    .join("\n");
}

/** A display formula: short, with mathematical symbols and few words. */
function looksLikeFormula(text: string): boolean {
  if (text.length > 160 || !mathSymbols.test(text)) return false;
  const words = text.match(/\p{L}{3,}/gu) ?? [];
  return words.length <= 2 && !/[.!?]$/.test(text.trim());
}

function tableDraft(table: Table, context: PageContext): Draft | undefined {
  const cells = table.cells
    .map((cell) => ({
      row: cell.row,
      column: cell.col,
      rowSpan: cell.rowSpan,
      columnSpan: cell.colSpan,
      text: cellText(cell.paragraphs, cell.text, context),
    }))
    .sort((a, b) => a.row - b.row || a.column - b.column);
  if (cells.every((cell) => cell.text === "")) return undefined;
  const rows = table.rowEdges.length - 1;
  const columns = table.columnEdges.length - 1;
  const text = Array.from({ length: rows }, (_, row) =>
    cells
      .filter((cell) => cell.row === row)
      .map((cell) => cell.text)
      .join("\t"),
  ).join("\n");
  const draft = blockDraft({ type: "table", text, rows, columns, cells }, table.box, context);
  return { ...draft, columnEdges: table.columnEdges };
}

/** A table's or figure's draft: no text style of its own. */
function blockDraft(element: Omit<Draft["element"], "page" | "bbox">, box: Box, context: PageContext): Draft {
  return {
    element: { ...element, page: page(context) + 1, bbox: bboxOf(box) },
    pageIndex: page(context),
    box,
    pageHeight: context.page.height,
    size: 0,
    bold: false,
    italic: false,
    recognised: context.ocr,
    headingLike: false,
    links: [],
  };
}

function cellText(paragraphs: Paragraph[], fallback: string, context: PageContext): string {
  if (paragraphs.length === 0) return fallback.replace(/\s+/g, " ").trim();
  return paragraphs
    .map((paragraph) =>
      paragraphPieces(paragraph, context.ocr, context.vocabulary.keepsHyphen)
        .map((piece) => piece.text)
        .join(""),
    )
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

function figureDraft(image: ImageBlock, context: PageContext): Draft | undefined {
  const width = image.box.x1 - image.box.x0;
  const height = image.box.y1 - image.box.y0;
  if (width < minFigureSide && height < minFigureSide) return undefined;
  // A scan's page image under its OCR text is the page, not a figure.
  if (context.ocr && width * height > 0.5 * context.page.width * context.page.height) return undefined;
  const draft = blockDraft({ type: "figure", text: "" }, image.box, context);
  if (context.keepFigures && image.data.length > 0) draft.figure = { data: image.data, mime: image.mime };
  return draft;
}

/** A paragraph starting "Figure 3" or "Table 2" next to a figure or a table is its caption. */
function markCaptions(drafts: Draft[]): void {
  for (const [index, draft] of drafts.entries()) {
    if (draft.element.type !== "paragraph" || !captionStart.test(draft.element.text)) continue;
    const near = [drafts[index - 1], drafts[index + 1]].some(
      (other) =>
        other !== undefined &&
        (other.element.type === "figure" || other.element.type === "table") &&
        verticalGap(draft.box, other.box) < 3 * Math.max(draft.size, 8),
    );
    // Far from one, only a numbered label with its colon or full stop ("Figure 3:") says caption.
    const labelled = draft.element.text.length < 400 && /^\S+\s*[\dIVXivx]+[.:]/u.test(draft.element.text);
    if (near || labelled) draft.element.type = "caption";
  }
}

function verticalGap(a: Box, b: Box): number {
  return Math.max(0, Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1));
}

/**
 * Footnotes: paragraphs in a smaller size than the body, in the lower part of the page, starting with
 * a note mark. They go after the rest of the page's text, where a reader meets them.
 */
function withFootnotesLast(drafts: Draft[], bodySize: number): Draft[] {
  const notes: Draft[] = [];
  const rest: Draft[] = [];
  for (const draft of drafts) {
    const isNote =
      draft.element.type === "paragraph" &&
      draft.size > 0 &&
      draft.size < 0.88 * bodySize &&
      draft.box.y0 > 0.6 * draft.pageHeight &&
      footnoteStart.test(draft.element.text);
    if (isNote) {
      draft.element.type = "footnote";
      draft.headingLike = false;
      notes.push(draft);
    } else rest.push(draft);
  }
  return [...rest, ...notes];
}

interface Style {
  size: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

/** The size, weight and pitch of most of the characters. */
function dominantStyle(pieces: StyledPiece[]): Style {
  const sizes = new Map<number, number>();
  let bold = 0;
  let italic = 0;
  let monospace = 0;
  let total = 0;
  for (const piece of pieces) {
    const weight = piece.text.replace(/\s/g, "").length;
    total += weight;
    const size = Math.round(piece.font.size * 2) / 2;
    sizes.set(size, (sizes.get(size) ?? 0) + weight);
    if (piece.font.bold) bold += weight;
    if (piece.font.italic) italic += weight;
    if (piece.font.monospace) monospace += weight;
  }
  let size = 0;
  let sizeWeight = -1;
  for (const [candidate, weight] of sizes) if (weight > sizeWeight) [size, sizeWeight] = [candidate, weight];
  const share = (count: number, of: number) => total > 0 && count >= of * total;
  return { size, bold: share(bold, 0.8), italic: share(italic, 0.8), monospace: share(monospace, 0.9) };
}

/** The links whose area holds some of the paragraph's spans, with the text of those spans. */
function linksIn(paragraph: Paragraph, links: PageLink[]): MarkdownLink[] {
  if (links.length === 0) return [];
  const found: MarkdownLink[] = [];
  for (const link of links) {
    const spans: TextSpan[] = [];
    for (const line of paragraph.lines)
      for (const span of line.spans) if (centreInside(span.box, link.box)) spans.push(span);
    const text = spans
      .map((span) => span.text)
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    if (text !== "" && !found.some((other) => other.uri === link.uri && other.text === text)) {
      found.push({ text, uri: link.uri });
    }
  }
  return found;
}

function centreInside(box: Box, area: Box): boolean {
  const x = (box.x0 + box.x1) / 2;
  const y = (box.y0 + box.y1) / 2;
  return x >= area.x0 - 1 && x <= area.x1 + 1 && y >= area.y0 - 1 && y <= area.y1 + 1;
}

function page(context: PageContext): number {
  return context.page.index;
}
