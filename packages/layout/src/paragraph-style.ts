import { median } from "./geometry.js";
import { lineIsBold, lineSize, lineText } from "./lines.js";
import type { Box, Paragraph, TextLine } from "./types.js";

/** Bullets (with Symbol's and Wingdings' private-use ones), numbers, letters and roman numerals. */
const listMarkerPattern =
  /^([•·◦▪▫■□●○‣⁃∙➢►✓\-–—*\uf020-\uf0ff]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlcIVXLC]{1,5}[.)])(?=\s|$)/;

export function listMarkerOf(line: TextLine): string | undefined {
  return listMarkerPattern.exec(lineText(line))?.[1];
}

function spread(values: number[]): number {
  return values.length ? Math.max(...values) - Math.min(...values) : 0;
}

export function alignmentOf(lines: TextLine[], region: Box): Paragraph["align"] {
  const size = median(lines.map(lineSize)) || 10;
  const width = Math.max(1, region.x1 - region.x0);
  const first = lines[0];
  if (!first) return "left";
  if (lines.length === 1) {
    const leftGap = first.box.x0 - region.x0;
    const rightGap = region.x1 - first.box.x1;
    if (leftGap > 0.1 * width && Math.abs(leftGap - rightGap) < Math.max(size, 0.08 * width)) return "center";
    if (rightGap < 0.05 * width && leftGap > 0.3 * width) return "right";
    return "left";
  }
  // Two lines leave no body to measure a first-line indent against: both lefts count.
  const lefts = lines.slice(lines.length > 2 ? 1 : 0).map((l) => l.box.x0);
  const rights = lines.slice(0, -1).map((l) => l.box.x1);
  const centres = lines.map((l) => (l.box.x0 + l.box.x1) / 2);
  const leftAligned = spread(lefts) < size * 0.6;
  const rightAligned = spread(rights) < size * 0.6;
  if (leftAligned && rightAligned) {
    const full = rights.length >= 2 || Math.max(...rights) > region.x1 - size * 1.5;
    const last = lines[lines.length - 1];
    const lastShort = last !== undefined && last.box.x1 < Math.max(...rights) - size;
    if (full && (rights.length >= 2 || lastShort)) return "justify";
  }
  if (!leftAligned && spread(centres) < size) return "center";
  if (!leftAligned && spread(lines.map((l) => l.box.x1)) < size * 0.6) return "right";
  return "left";
}

export function headingLevelOf(lines: TextLine[], bodySize: number): Paragraph["headingLevel"] {
  const text = lines.map(lineText).join(" ");
  if (lines.length > 4 || text.length > 200 || !/\p{L}/u.test(text)) return undefined;
  const ratio = median(lines.map(lineSize)) / Math.max(1, bodySize);
  if (ratio >= 1.6) return 1;
  if (ratio >= 1.3) return 2;
  if (ratio >= 1.12) return 3;
  const shortBold = lines.length <= 2 && text.length < 120 && lines.every(lineIsBold) && !/[.,;]$/.test(text);
  return shortBold && ratio > 0.95 ? 3 : undefined;
}
