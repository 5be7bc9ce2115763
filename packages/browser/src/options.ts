import type { PDFOptions } from "puppeteer-core";

export type PaperFormat = "A4" | "Letter" | "Legal";
export type MarginName = "none" | "small" | "normal";
export type MediaType = "print" | "screen";

/** The html-to-pdf options of the API (packages/contracts), defaults already applied. */
export interface HtmlRenderOptions {
  format: PaperFormat;
  landscape: boolean;
  margin: MarginName;
  background: boolean;
  media: MediaType;
}

/**
 * The page margin on all four sides. "small" matches Chrome's own print default (about 10 mm); "normal"
 * is a word processor's comfortable margin. A page's own CSS `@page { margin }` still wins, as in Chrome.
 */
export const marginSizes: Readonly<Record<MarginName, string>> = {
  none: "0mm",
  small: "10mm",
  normal: "20mm",
};

/**
 * What Chromium prints. The requested paper wins over a page's CSS `@page { size }` (preferCSSPageSize
 * off): `format` is an API option with a default, so the client always gets the paper it asked for.
 * Only pages 1..maxPages+1 are laid out into the PDF, so a hostile page cannot make Chromium print a
 * million pages before the cap is checked.
 */
export function pdfOptions(options: HtmlRenderOptions, maxPages: number, timeoutMs: number): PDFOptions {
  const margin = marginSizes[options.margin];
  return {
    format: options.format,
    landscape: options.landscape,
    printBackground: options.background,
    margin: { top: margin, right: margin, bottom: margin, left: margin },
    preferCSSPageSize: false,
    displayHeaderFooter: false,
    tagged: false,
    pageRanges: `1-${maxPages + 1}`,
    timeout: Math.max(1, Math.round(timeoutMs)),
  };
}
