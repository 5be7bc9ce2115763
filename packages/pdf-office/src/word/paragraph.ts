import type { Box, Paragraph as LayoutParagraph } from "@octavo/layout";
import { AlignmentType, HeadingLevel, LineRuleType, Paragraph, TextRun } from "docx";
import { largestSize, paragraphPieces, type StyledPiece } from "../text.js";

/** Word measures most lengths in twentieths of a point. */
export const twips = (points: number): number => Math.round(points * 20);

const alignments = {
  left: AlignmentType.LEFT,
  center: AlignmentType.CENTER,
  right: AlignmentType.RIGHT,
  justify: AlignmentType.JUSTIFIED,
} as const;

const headings = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export interface ParagraphPlace {
  /** The left edge the paragraph's indent is measured from: its column's, or its table cell's. */
  left: Box["x0"];
  /** Space before the paragraph is dropped at the top of a page or cell, where Word would add it. */
  first: boolean;
  pageBreakBefore?: boolean;
  /** The text came from OCR (see `paragraphPieces`). */
  ocr?: boolean;
}

/**
 * One flowing Word paragraph for one layout paragraph: its lines joined (the PDF's line breaks are not
 * kept, so the text reflows when edited), its runs styled, its alignment, indents and spacing.
 */
export function wordParagraph(paragraph: LayoutParagraph, place: ParagraphPlace): Paragraph {
  const size = largestSize(paragraph);
  const multiLine = paragraph.lines.length > 1;
  // A line pitch below the font size is a measuring accident; Word's single spacing is safer then.
  const exactPitch = multiLine && paragraph.lineHeight >= 1.05 * size && paragraph.lineHeight < 4 * size;
  const hanging = Math.max(0, -paragraph.firstLineIndent);
  const offset = Math.max(0, paragraph.box.x0 - place.left);
  const centred = paragraph.align === "center" || paragraph.align === "right";
  return new Paragraph({
    children: paragraphPieces(paragraph, place.ocr === true).map(textRun),
    alignment: alignments[paragraph.align],
    ...(paragraph.headingLevel === undefined ? {} : { heading: headings[paragraph.headingLevel] }),
    indent: {
      left: centred ? 0 : twips(offset + hanging),
      ...(hanging > 0
        ? { hanging: twips(hanging) }
        : { firstLine: twips(Math.max(0, paragraph.firstLineIndent)) }),
    },
    spacing: {
      before: place.first ? 0 : twips(Math.min(72, Math.max(0, paragraph.spaceBefore))),
      after: 0,
      ...(exactPitch
        ? { line: twips(paragraph.lineHeight), lineRule: LineRuleType.EXACT }
        : { line: 240, lineRule: LineRuleType.AUTO }),
    },
    ...(place.pageBreakBefore === true ? { pageBreakBefore: true } : {}),
  });
}

export function textRun(piece: StyledPiece): TextRun {
  return new TextRun({
    text: piece.text,
    font: piece.font.family,
    size: Math.min(3276, Math.max(2, Math.round(piece.font.size * 2))),
    bold: piece.font.bold,
    italics: piece.font.italic,
    // Always written: Word's Heading styles would otherwise colour headings blue.
    color: piece.color,
  });
}

/** An empty paragraph that starts a new page (a page whose content cannot start one itself). */
export function pageBreakParagraph(): Paragraph {
  return new Paragraph({ children: [], pageBreakBefore: true, spacing: { before: 0, after: 0 } });
}
