import { median, unionBoxes } from "./geometry.js";
import { lineIsBold, lineSize, lineText } from "./lines.js";
import { alignmentOf, headingLevelOf, listMarkerOf } from "./paragraph-style.js";
import type { Box, Paragraph, TextLine } from "./types.js";

function overlapsHorizontally(a: Box, b: Box): boolean {
  return Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0;
}

/**
 * The line pitch most of the region's lines are set at, when it is clear (at least two pitches
 * between lines of one size, half of them within 10 % of it): double-spaced text then reads as
 * paragraphs, not as a paragraph per line.
 */
function usualPitchOf(lines: TextLine[]): number | undefined {
  const pitches: number[] = [];
  for (let index = 1; index < lines.length; index += 1) {
    const prev = lines[index - 1] as TextLine;
    const next = lines[index] as TextLine;
    const pitch = next.baseline - prev.baseline;
    const sameSize =
      Math.abs(lineSize(prev) - lineSize(next)) <= 0.15 * Math.min(lineSize(prev), lineSize(next));
    if (pitch > 0 && sameSize && overlapsHorizontally(prev.box, next.box)) pitches.push(pitch);
  }
  if (pitches.length < 2) return undefined;
  const usual = median(pitches);
  const near = pitches.filter((pitch) => Math.abs(pitch - usual) <= 0.1 * usual).length;
  return near * 2 >= pitches.length ? usual : undefined;
}

/** Whether `next` starts a new paragraph rather than continuing `current`. */
function startsNewParagraph(current: TextLine[], next: TextLine, usualPitch?: number): boolean {
  const prev = current[current.length - 1];
  const first = current[0];
  if (!prev || !first) return true;
  if (prev.rotation !== 0 || next.rotation !== 0) return true;
  const prevSize = lineSize(prev);
  const nextSize = lineSize(next);
  const size = Math.max(prevSize, nextSize, 1);
  if (Math.abs(prevSize - nextSize) > 0.15 * Math.min(prevSize, nextSize)) return true;
  const box = unionBoxes(current.map((l) => l.box));
  if (!overlapsHorizontally(box, next.box)) return true;
  const pitch = next.baseline - prev.baseline;
  if (pitch <= 0) return true;
  if (current.length >= 2) {
    const before = current[current.length - 2];
    const usual = before ? prev.baseline - before.baseline : pitch;
    if (pitch > usual * 1.3 + 1) return true;
  } else if (usualPitch === undefined || Math.abs(pitch - usualPitch) > 0.1 * usualPitch) {
    if (next.box.y0 - prev.box.y1 > 0.8 * size || pitch > 2.2 * size) return true;
  }
  if (listMarkerOf(next)) return true;
  if (lineIsBold(prev) !== lineIsBold(next) && (lineIsBold(prev) || current.length === 1)) return true;
  // A first-line indent after body lines opens the next paragraph.
  const bodyLeft = Math.min(...current.slice(current.length >= 2 ? 1 : 0).map((l) => l.box.x0));
  if (current.length >= 2 && next.box.x0 > bodyLeft + 0.8 * size) return true;
  // A line ending well short of its neighbours after a full stop closes its paragraph.
  const right = Math.max(box.x1, next.box.x1);
  const left = Math.min(box.x0, next.box.x0);
  const short = right - prev.box.x1 > Math.max(2 * size, 0.12 * (right - left));
  if (short && /[.!?:;"”)]$/.test(lineText(prev))) return true;
  return false;
}

function finish(lines: TextLine[], region: Box, bodySize: number, spaceBefore: number): Paragraph {
  const sizes = lines.map(lineSize);
  const pitches = lines.slice(1).map((l, i) => l.baseline - (lines[i]?.baseline ?? l.baseline));
  const first = lines[0];
  const others = lines.slice(1);
  const paragraph: Paragraph = {
    kind: "paragraph",
    box: unionBoxes(lines.map((l) => l.box)),
    lines,
    align: alignmentOf(lines, region),
    firstLineIndent: first && others.length ? first.box.x0 - Math.min(...others.map((l) => l.box.x0)) : 0,
    spaceBefore: Math.max(0, spaceBefore),
    lineHeight: pitches.length ? median(pitches) : median(sizes),
  };
  const marker = first ? listMarkerOf(first) : undefined;
  if (marker) paragraph.listMarker = marker;
  const heading = headingLevelOf(lines, bodySize);
  if (heading && !marker) paragraph.headingLevel = heading;
  return paragraph;
}

/** Flows lines of one column (top to bottom) into paragraphs. */
export function buildParagraphs(lines: TextLine[], region: Box, bodySize: number): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  let current: TextLine[] = [];
  let previousBottom: number | undefined;
  const flush = () => {
    if (!current.length) return;
    const top = Math.min(...current.map((l) => l.box.y0));
    paragraphs.push(
      finish(current, region, bodySize, previousBottom === undefined ? 0 : top - previousBottom),
    );
    previousBottom = Math.max(...current.map((l) => l.box.y1));
    current = [];
  };
  const usualPitch = usualPitchOf(lines);
  for (const line of lines) {
    if (current.length && startsNewParagraph(current, line, usualPitch)) flush();
    current.push(line);
  }
  flush();
  return paragraphs;
}
