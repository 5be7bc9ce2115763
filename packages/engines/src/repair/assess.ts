import { countPages, withPdf } from "../mupdf/document.js";
import { outlineLoops } from "../mupdf/outline-cycles.js";
import { estimateTextChars } from "../mupdf/text.js";
import { popplerPages } from "../poppler.js";
import { qpdfCheck, qpdfPageCount } from "../qpdf.js";

/** How a candidate file looks to three independent parsers. */
export interface Assessment {
  /** `qpdf --check` exited 0 or 3. */
  passesCheck: boolean;
  /** Pages MuPDF reaches by walking the tree; undefined when it cannot. */
  pages: number | undefined;
  /** True when qpdf and poppler count the same pages as MuPDF. */
  parsersAgree: boolean;
  textChars: number;
  outlineLoops: number;
  problem: string | undefined;
}

export async function assess(path: string, signal: AbortSignal | undefined): Promise<Assessment> {
  const check = await qpdfCheck(path, { signal });
  const counted = await qpdfPageCount(path, { signal });
  const poppler = await popplerPages(path, signal);
  let seen: { pages: number | undefined; textChars: number; outlineLoops: number };
  try {
    seen = await withPdf(path, (doc) => {
      const pages = countPages(doc);
      return {
        pages,
        textChars: pages === undefined ? 0 : estimateTextChars(doc, pages, signal),
        outlineLoops: outlineLoops(doc, { cut: false }),
      };
    });
  } catch (error) {
    return {
      passesCheck: check.ok,
      pages: undefined,
      parsersAgree: false,
      textChars: 0,
      outlineLoops: 0,
      problem: `MuPDF cannot open it: ${(error as Error).message}`,
    };
  }
  const parsersAgree = seen.pages !== undefined && counted.pages === seen.pages && poppler === seen.pages;
  return {
    passesCheck: check.ok,
    ...seen,
    parsersAgree,
    problem: problemOf(check.ok, seen, parsersAgree, counted.pages, poppler),
  };
}

function problemOf(
  passesCheck: boolean,
  seen: { pages: number | undefined; outlineLoops: number },
  parsersAgree: boolean,
  qpdfPages: number | undefined,
  popplerPages: number | undefined,
): string | undefined {
  if (!passesCheck) return "qpdf --check finds errors";
  if (seen.pages === undefined || seen.pages === 0) return "no readable page";
  if (!parsersAgree)
    return `page counts differ (MuPDF ${seen.pages}, qpdf ${qpdfPages ?? "none"}, poppler ${popplerPages ?? "none"})`;
  if (seen.outlineLoops > 0) return "its bookmarks loop";
  return undefined;
}
