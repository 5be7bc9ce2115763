import type { Mupdf } from "@octavo/mupdf";
import { limits } from "../limits.js";
import type { PdfDocument } from "./document.js";

/**
 * Walks the bookmark tree along /First and /Next with a seen-set and counts links that point back into
 * the tree (or past the item cap). With `cut`, each such link is deleted so viewers and later rewrites
 * stop looping; everything before the loop is kept.
 */
export function outlineLoops(doc: PdfDocument, options: { cut: boolean }): number {
  const root = doc.getTrailer().get("Root").get("Outlines");
  if (!root.isDictionary()) return 0;
  const seen = new Set<number>();
  if (root.isIndirect()) seen.add(root.asIndirect());
  const pending: Mupdf.PDFObject[] = [root];
  let loops = 0;
  for (let parent = pending.pop(); parent !== undefined; parent = pending.pop()) {
    let holder = parent;
    let link: "First" | "Next" = "First";
    for (;;) {
      const item = holder.get(link);
      if (!item.isDictionary()) break;
      const id = item.isIndirect() ? item.asIndirect() : undefined;
      if ((id !== undefined && seen.has(id)) || seen.size >= limits.maxOutlineItems) {
        loops += 1;
        if (options.cut) holder.delete(link);
        break;
      }
      if (id !== undefined) seen.add(id);
      pending.push(item);
      holder = item;
      link = "Next";
    }
  }
  return loops;
}
