/**
 * Page lists such as "1-3, 5,7-9": comma-separated 1-based pages or <from>-<to> ranges,
 * spaces around tokens tolerated. Used by split.ranges and rotate.pages.
 */

// Leading zeros are tolerated ("07"), but a page number must not be zero.
const page = "0*[1-9][0-9]*";
const token = `${page}(?:-${page})?`;

/** The syntax as a JSON Schema pattern, so clients see it in the OpenAPI document. */
export const pageRangesPattern = `^\\s*${token}\\s*(?:,\\s*${token}\\s*)*$`;

/** A custom JSON Schema format; ajv checks it with `pageRangesProblem`, which also catches "5-3". */
export const pageRangesFormat = "page-ranges";

export interface PageRange {
  /** First page, 1-based. */
  from: number;
  /** Last page, inclusive; equal to `from` for a single page. */
  to: number;
}

const tokenShape = /^(\d+)(?:-(\d+))?$/;

type TokenResult = { range: PageRange } | { problem: string };

function readToken(raw: string): TokenResult {
  const text = raw.trim();
  const match = tokenShape.exec(text);
  const fromText = match?.[1];
  if (match === null || fromText === undefined) {
    return { problem: `"${text}" is not a page or range; write pages and ranges such as 1-3, 5, 7-9` };
  }
  const from = Number(fromText);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (from === 0 || to === 0) return { problem: `"${text}" names page 0; pages start at 1` };
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) {
    return { problem: `"${text}" names a page number that is too large` };
  }
  if (to < from) return { problem: `"${text}" goes backwards; write it as ${to}-${from}` };
  return { range: { from, to } };
}

/** Parses a page list; a result of `{ problem }` says in plain words what is wrong with it. */
export function parsePageRanges(text: string): { ranges: PageRange[] } | { problem: string } {
  const ranges: PageRange[] = [];
  for (const raw of text.split(",")) {
    const result = readToken(raw);
    if ("problem" in result) return result;
    ranges.push(result.range);
  }
  return { ranges };
}

/** What is wrong with a page list, or undefined when it is valid. */
export function pageRangesProblem(text: string): string | undefined {
  const result = parsePageRanges(text);
  return "problem" in result ? result.problem : undefined;
}
