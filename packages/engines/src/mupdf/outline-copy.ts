import type { Mupdf } from "@octavo/mupdf";
import { limits } from "../limits.js";
import type { PdfDocument } from "./document.js";
import { outlineLoops } from "./outline-cycles.js";

type OutlineItem = NonNullable<ReturnType<PdfDocument["loadOutline"]>>[number];

export type OutlineCopy = { copied: number } | { copied: 0; skipped: string };

const maxDepth = 64;

/**
 * Appends the source's bookmarks at the iterator's position, each pointing at its page shifted by
 * `pageOffset` (the source's first page in the target). A looping outline is skipped, not fatal.
 */
export function copyOutline(
  target: PdfDocument,
  iterator: Mupdf.OutlineIterator,
  source: PdfDocument,
  pageOffset: number,
): OutlineCopy {
  if (outlineLoops(source, { cut: false }) > 0)
    return { copied: 0, skipped: "its bookmarks loop back on themselves" };
  let items: OutlineItem[];
  try {
    items = source.loadOutline() ?? [];
  } catch (error) {
    return { copied: 0, skipped: `its bookmarks could not be read (${(error as Error).message})` };
  }
  const budget = { left: limits.maxOutlineItems };
  return { copied: insertItems({ target, iterator, source, pageOffset }, items, 0, budget) };
}

interface CopyJob {
  target: PdfDocument;
  iterator: Mupdf.OutlineIterator;
  source: PdfDocument;
  pageOffset: number;
}

function insertItems(job: CopyJob, items: OutlineItem[], depth: number, budget: { left: number }): number {
  let copied = 0;
  for (const item of items) {
    if (budget.left <= 0) break;
    budget.left -= 1;
    // insert() adds before the iterator's position, so the iterator stays at the end of this level.
    job.iterator.insert({ title: item.title, uri: targetUri(job, item.uri), open: item.open });
    copied += 1;
    const children = item.down ?? [];
    if (children.length > 0 && depth < maxDepth) {
      job.iterator.prev();
      job.iterator.down();
      copied += insertItems(job, children, depth + 1, budget);
      job.iterator.up();
      job.iterator.next();
    }
  }
  return copied;
}

/** Internal destinations are resolved in the source and re-aimed at the shifted page; web links stay. */
function targetUri(job: CopyJob, uri: string | undefined): string | undefined {
  if (uri === undefined || !uri.startsWith("#")) return uri;
  try {
    const dest = job.source.resolveLinkDestination(uri);
    if (dest.page < 0) return undefined;
    return job.target.formatLinkURI({ ...dest, page: dest.page + job.pageOffset });
  } catch {
    // A destination MuPDF cannot resolve (e.g. a missing named destination) keeps its title, no target.
    return undefined;
  }
}
