import type { PageLayout, Paragraph, TextSpan } from "@octavo/layout";

/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their forms). */
const strongRightToLeft = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/gu;
/** Letters of the left-to-right alphabets most often mixed into them. */
export const strongLeftToRight = /[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]/gu;

/** Text with right-to-left letters, at least as many as left-to-right ones. */
export function isRightToLeft(text: string): boolean {
  const rtl = text.match(strongRightToLeft)?.length ?? 0;
  return rtl > 0 && rtl >= (text.match(strongLeftToRight)?.length ?? 0);
}

/** Text holding letters of both directions. */
export function hasBothDirections(text: string): boolean {
  return (text.match(strongRightToLeft)?.length ?? 0) > 0 && (text.match(strongLeftToRight)?.length ?? 0) > 0;
}

/**
 * The spans of a right-to-left line in reading order: runs of left-to-right spans ("Jeremy is", a
 * number) keep their order, and the runs are read from the right. A span holding both directions gives
 * no safe order to its parts, so such a line keeps MuPDF's, which is the content stream's.
 */
function rightToLeftRuns(spans: TextSpan[]): TextSpan[] {
  if (spans.some((span) => hasBothDirections(span.text))) return spans;
  const visual = [...spans].sort((a, b) => a.box.x0 - b.box.x0);
  const runs: TextSpan[][] = [];
  for (const span of visual) {
    const last = runs[runs.length - 1];
    const leftToRight = !isRightToLeft(span.text) && (span.text.match(strongLeftToRight)?.length ?? 0) > 0;
    const lastLeftToRight = last?.every((member) => !isRightToLeft(member.text));
    if (leftToRight && lastLeftToRight && last !== undefined) last.push(span);
    else runs.push([span]);
  }
  return runs.reverse().flat();
}

/**
 * Arabic and Hebrew read from the right: a line mostly in those scripts has its runs put right to left,
 * so a Latin word or a number inside it lands where a reader meets it, each run's own text staying as
 * it is (MuPDF gives a run's characters in logical order). A table mostly in those scripts has its
 * columns numbered from the right.
 */
export function rightToLeftInReadingOrder(page: PageLayout): void {
  const lines = (paragraphs: Paragraph[]) => paragraphs.flatMap((paragraph) => paragraph.lines);
  for (const block of page.blocks) {
    const all =
      block.kind === "paragraph"
        ? block.lines
        : block.kind === "table"
          ? lines(block.cells.flatMap((cell) => cell.paragraphs))
          : [];
    for (const line of all) {
      if (line.spans.length > 1 && isRightToLeft(line.spans.map((span) => span.text).join(""))) {
        line.spans = rightToLeftRuns(line.spans);
      }
    }
    if (block.kind === "table" && isRightToLeft(block.cells.map((cell) => cell.text).join(" "))) {
      const columns = block.columnEdges.length - 1;
      for (const cell of block.cells) cell.col = columns - cell.col - cell.colSpan;
    }
  }
}
