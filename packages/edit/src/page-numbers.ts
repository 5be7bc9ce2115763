import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import { type StampPosition, stampPdf } from "./stamp.js";

export interface PageNumbersOptions {
  /** Contains {n} (the page's number), maybe {total} (how many pages are numbered); 1–50 characters. */
  format: string;
  position: Exclude<StampPosition, "center">;
  /** The number of the first numbered page, 1–100000. */
  start: number;
  /** "1-3,5": the pages to number; omitted = all pages. */
  pages?: string;
  /** 6–72 points. */
  fontSize: number;
  margin: "small" | "normal";
}

/** Points between the number and the visible edges it is next to (a quarter and half an inch). */
const margins = { small: 18, normal: 36 } as const;

/**
 * Writes a page number as real text on each chosen page. The chosen pages are counted from `start` in
 * page order (the first chosen page gets `start`), and {total} is how many pages are chosen.
 */
export function pageNumbers(
  input: EngineInput,
  options: PageNumbersOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return stampPdf(
    input,
    {
      operation: "page-numbers",
      label: "the page numbers",
      pages: options.pages,
      style: {
        fontSize: options.fontSize,
        color: "#000000",
        opacity: 1,
        rotation: 0,
        position: options.position,
        margin: margins[options.margin],
      },
      textOf: (ordinal, count) => numberText(options.format, options.start + ordinal, count),
    },
    ctx,
  );
}

/** The format with {n} and {total} filled in (in one pass, so a filled-in value is never read again). */
export function numberText(format: string, n: number, total: number): string {
  return format.replace(/\{n\}|\{total\}/g, (placeholder) => String(placeholder === "{n}" ? n : total));
}
