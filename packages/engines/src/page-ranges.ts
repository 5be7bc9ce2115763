import { JobFailure } from "./errors.js";

export interface PageRange {
  /** 1-based, inclusive. */
  from: number;
  to: number;
}

const tokenShape = /^(\d+)(?:\s*-\s*(\d+))?$/;

/** Parses "1-3,5,7-9" (1-based pages and ranges); a malformed list fails with invalid_input. */
export function parsePageRanges(text: string, option: string): PageRange[] {
  const ranges: PageRange[] = [];
  for (const raw of text.split(",")) {
    const token = raw.trim();
    const match = tokenShape.exec(token);
    const from = Number(match?.[1]);
    const to = match?.[2] === undefined ? from : Number(match[2]);
    if (match === null || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) {
      throw new JobFailure(
        "invalid_input",
        `The ${option} option "${text}" is not a valid page list ("${token}" is not a page or range); write pages and ranges such as 1-3,5,7-9.`,
      );
    }
    ranges.push({ from, to });
  }
  return ranges;
}

export function formatRange(range: PageRange): string {
  return range.from === range.to ? `${range.from}` : `${range.from}-${range.to}`;
}

/** Fails with invalid_input naming the first range that lies outside the document. */
export function requireWithin(ranges: PageRange[], pages: number, fileName: string): void {
  const outside = ranges.find((range) => range.to > pages);
  if (outside === undefined) return;
  const label = outside.from === outside.to ? "page" : "range";
  throw new JobFailure(
    "invalid_input",
    `The ${label} ${formatRange(outside)} is outside ${fileName}, which has ${pages} page${pages === 1 ? "" : "s"}.`,
  );
}

/** The selected 1-based pages, once each and in page order; a page beyond the document fails. */
export function selectPages(ranges: PageRange[] | undefined, pages: number, fileName: string): number[] {
  if (ranges === undefined) return Array.from({ length: pages }, (_, index) => index + 1);
  requireWithin(ranges, pages, fileName);
  const selected = new Set<number>();
  for (const range of ranges) {
    for (let page = range.from; page <= range.to; page += 1) selected.add(page);
  }
  return [...selected].sort((a, b) => a - b);
}
