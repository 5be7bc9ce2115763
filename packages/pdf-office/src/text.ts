import type { FontStyle, Paragraph, TextLine, TextSpan } from "@octavo/layout";

/** A run of text in one style, ready for a word processor or a slide: the PDF's line breaks are gone. */
export interface StyledPiece {
  text: string;
  font: FontStyle;
  /** "RRGGBB", without the "#". */
  color: string;
}

const cjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]/u;

/**
 * The paragraph's text as flowing runs: lines joined with a space, end-of-line hyphenation removed
 * ("exam-" + "ple" → "example" when the next line goes on in lower case), neighbouring runs of the same
 * style merged.
 */
export function paragraphPieces(
  paragraph: Paragraph,
  ocr = false,
  keepsHyphen?: (before: string, after: string) => boolean,
): StyledPiece[] {
  const pieces: StyledPiece[] = [];
  for (const line of paragraph.lines) {
    const spans = line.spans.filter((span) => span.text !== "");
    for (const [index, span] of spans.entries()) {
      const previous = pieces[pieces.length - 1];
      const text = normaliseSpaces(span.text);
      if (previous !== undefined) {
        if (index === 0) joinLines(previous, text, keepsHyphen);
        else if (needsSpaceBetween(spans[index - 1] as TextSpan, span)) previous.text += " ";
      }
      append(pieces, { text, font: span.font, color: hexOf(span.color) });
    }
  }
  trimEnds(pieces);
  const kept = pieces.filter((piece) => piece.text !== "");
  return ocr ? evenedOcrText(kept) : kept;
}

/**
 * OCR gives every word its own size and an invisible placeholder font: a recognised paragraph becomes one
 * run in an ordinary font at the paragraph's median size.
 */
function evenedOcrText(pieces: StyledPiece[]): StyledPiece[] {
  const first = pieces[0];
  if (first === undefined) return pieces;
  const sizes = pieces.map((piece) => piece.font.size).sort((a, b) => a - b);
  const median = Math.round((sizes[Math.floor(sizes.length / 2)] ?? first.font.size) * 2) / 2;
  const font = {
    ...first.font,
    name: "Arial",
    family: "Arial",
    size: median,
    bold: false,
    italic: false,
    monospace: false,
  };
  return [{ text: pieces.map((piece) => piece.text).join(""), font, color: "000000" }];
}

/** The paragraph's plain text (what `paragraphPieces` writes), for tests and spreadsheet cells. */
export function paragraphText(paragraph: Paragraph): string {
  return paragraphPieces(paragraph)
    .map((piece) => piece.text)
    .join("");
}

/** The largest font size in the paragraph, in points. */
export function largestSize(paragraph: Paragraph): number {
  let size = 0;
  for (const line of paragraph.lines) for (const span of line.spans) size = Math.max(size, span.font.size);
  return size > 0 ? size : 10;
}

export function lineText(line: TextLine): string {
  return line.spans.map((span) => span.text).join("");
}

function joinLines(
  previous: StyledPiece,
  next: string,
  keepsHyphen?: (before: string, after: string) => boolean,
): void {
  const hyphenated = /\p{L}[-\u00ad]$/u.exec(previous.text);
  if (hyphenated && /^\p{Ll}/u.test(next)) {
    // A compound the document writes with its hyphen keeps it; the lines then join without a space.
    const hard = previous.text.endsWith("-");
    if (!(hard && keepsHyphen?.(previous.text.slice(0, -1), next)))
      previous.text = previous.text.slice(0, -1);
    return;
  }
  if (previous.text.endsWith("\u00ad")) previous.text = previous.text.slice(0, -1);
  if (/\s$/.test(previous.text) || /^\s/.test(next)) return;
  // Chinese and Japanese lines join without a space.
  if (cjk.test(previous.text.slice(-1)) && cjk.test(next.charAt(0))) return;
  previous.text += " ";
}

/**
 * Two spans on one line with a visible gap between them and no space character of their own. The gap
 * is measured either way: in right-to-left text the next span lies to the left.
 */
function needsSpaceBetween(left: TextSpan, right: TextSpan): boolean {
  if (/\s$/.test(left.text) || /^\s/.test(right.text)) return false;
  const gap = Math.max(right.box.x0 - left.box.x1, left.box.x0 - right.box.x1);
  return gap > 0.2 * Math.min(left.font.size, right.font.size);
}

function append(pieces: StyledPiece[], piece: StyledPiece): void {
  const last = pieces[pieces.length - 1];
  if (last !== undefined && sameStyle(last, piece)) last.text += piece.text;
  else pieces.push({ ...piece });
}

function sameStyle(a: StyledPiece, b: StyledPiece): boolean {
  return (
    a.color === b.color &&
    a.font.family === b.font.family &&
    Math.abs(a.font.size - b.font.size) < 0.25 &&
    a.font.bold === b.font.bold &&
    a.font.italic === b.font.italic
  );
}

function trimEnds(pieces: StyledPiece[]): void {
  const first = pieces[0];
  if (first !== undefined) first.text = first.text.replace(/^\s+/, "");
  const last = pieces[pieces.length - 1];
  if (last !== undefined) last.text = last.text.replace(/\s+$/, "");
}

function normaliseSpaces(text: string): string {
  return withoutControlCharacters(text).replace(/\s{2,}/g, " ");
}

/** Control characters other than tab and line feed are not allowed in OOXML text. */
function withoutControlCharacters(text: string): string {
  let kept = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const control = (code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0xfffe || code === 0xffff;
    if (!control) kept += char;
  }
  return kept;
}

export function hexOf(color: string): string {
  const hex = color.replace(/^#/, "").toUpperCase();
  return /^[0-9A-F]{6}$/.test(hex) ? hex : "000000";
}
