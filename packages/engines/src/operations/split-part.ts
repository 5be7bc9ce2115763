import type { Mupdf } from "@octavo/mupdf";
import { limits } from "../limits.js";
import type { PdfDocument } from "../mupdf/document.js";
import { outlineLoops } from "../mupdf/outline-cycles.js";
import type { PageRange } from "../page-ranges.js";

/*
 * One part of a split: the source with the pages outside `range` removed by MuPDF (pdf_rearrange_pages),
 * which also drops the links and named destinations aimed at them. MuPDF rebuilds the catalog with only
 * the pages, the outline and the destinations, so the rest is put back here: the document's metadata,
 * language, viewer settings, attachments and output intents as they were, the form with only the fields
 * drawn on the part's pages, and the bookmarks aimed inside the part. MuPDF drops a bookmark whose target
 * goes with its children, so a section's would vanish with its chapter's: such children move up a level.
 * Left out: the structure tree and page labels (both count the removed pages), XFA (it describes the
 * whole form), and what acts on the whole document (an open action, signatures' permissions, threads).
 */

/** The catalog entries a part does not take from the source (see above); the rest it keeps. */
const notKept = new Set([
  "Type",
  "Pages",
  "Outlines",
  "Names",
  "Dests",
  "AcroForm",
  "StructTreeRoot",
  "MarkInfo",
  "PageLabels",
  "OpenAction",
  "Perms",
  "Threads",
  "Legal",
  "NeedsRendering",
]);

/** Removes the pages outside `range` (1-based, inclusive), keeping what belongs to the rest. */
export function cutToRange(doc: PdfDocument, range: PageRange): void {
  // The entries, not the catalog: MuPDF writes the new catalog in the old one's object.
  const entries = new Map<string, Mupdf.PDFObject>();
  const oldRoot = doc.getTrailer().get("Root");
  if (oldRoot.isDictionary()) {
    oldRoot.forEach((value, key) => {
      entries.set(String(key), value);
    });
  }
  const bookmarks = bookmarksWithin(doc, range);
  // MuPDF walks the outline as it removes pages; a loop in it would stop it (the bookmarks are read above).
  outlineLoops(doc, { cut: true });
  doc.rearrangePages(Array.from({ length: range.to - range.from + 1 }, (_, index) => range.from - 1 + index));
  const root = doc.getTrailer().get("Root");
  for (const [key, value] of entries) {
    if (!notKept.has(key) && root.get(key).isNull()) root.put(key, value);
  }
  const oldNames = entries.get("Names");
  if (oldNames !== undefined) keepNames(doc, oldNames, root);
  const form = entries.get("AcroForm");
  if (form !== undefined) keepForm(doc, form, root);
  writeBookmarks(doc, bookmarks);
}

/** The name trees other than the destinations MuPDF pruned: attachments, JavaScript, and the like. */
function keepNames(doc: PdfDocument, oldNames: Mupdf.PDFObject, root: Mupdf.PDFObject): void {
  if (!oldNames.isDictionary()) return;
  let names = root.get("Names");
  oldNames.forEach((value, key) => {
    if (String(key) === "Dests") return;
    if (!names.isDictionary()) {
      names = doc.newDictionary();
      root.put("Names", names);
    }
    names.put(String(key), value);
  });
}

/** The form, its /Fields cut to the fields with a widget on the part's pages; no fields left, no form. */
function keepForm(doc: PdfDocument, form: Mupdf.PDFObject, root: Mupdf.PDFObject): void {
  if (!form.isDictionary() || !form.get("Fields").isArray()) return;
  const onPages = new Set<number>();
  for (let index = 0; index < doc.countPages(); index += 1) {
    const annotations = doc.findPage(index).get("Annots");
    if (!annotations.isArray()) continue;
    for (let item = 0; item < annotations.length; item += 1) {
      const annotation = annotations.get(item);
      if (annotation.isIndirect()) onPages.add(annotation.asIndirect());
    }
  }
  const seen = new Set<number>();
  // Keeps, in place, the entries of `kids` that are drawn on the part's pages or have such descendants.
  const prune = (kids: Mupdf.PDFObject, depth: number): boolean => {
    for (let index = kids.length - 1; index >= 0; index -= 1) {
      const kid = kids.get(index);
      const id = kid.isIndirect() ? kid.asIndirect() : undefined;
      const fresh = id === undefined || !seen.has(id);
      if (id !== undefined) seen.add(id);
      const children = kid.isDictionary() ? kid.get("Kids") : undefined;
      const kept =
        fresh &&
        ((id !== undefined && onPages.has(id)) ||
          (children?.isArray() && depth < 32 && prune(children, depth + 1)));
      if (!kept) kids.delete(index);
    }
    return kids.length > 0;
  };
  if (!prune(form.get("Fields"), 0)) return;
  // XFA describes the whole form; viewers that read it would show the removed pages' fields.
  form.delete("XFA");
  root.put("AcroForm", form);
}

type LinkDest = ReturnType<PdfDocument["resolveLinkDestination"]>;

interface KeptBookmark {
  title: string;
  open: boolean;
  /** The target, its page counted in the part. */
  dest: LinkDest;
  children: KeptBookmark[];
}

const maxDepth = 64;

/** The bookmarks aimed inside `range`, re-aimed at the part's pages; none when the outline loops. */
function bookmarksWithin(doc: PdfDocument, range: PageRange): KeptBookmark[] {
  if (outlineLoops(doc, { cut: false }) > 0) return [];
  const budget = { left: limits.maxOutlineItems };
  const keep = (items: ReturnType<PdfDocument["loadOutline"]> | undefined, depth: number): KeptBookmark[] =>
    (items ?? []).flatMap((item) => {
      if (budget.left <= 0 || depth > maxDepth) return [];
      budget.left -= 1;
      const children = keep(item.down ?? null, depth + 1);
      const dest = destinationOf(doc, item.uri);
      if (dest === undefined || dest.page < range.from - 1 || dest.page > range.to - 1) return children;
      return [
        {
          title: item.title ?? "",
          open: item.open ?? false,
          dest: { ...dest, page: dest.page - (range.from - 1) },
          children,
        },
      ];
    });
  try {
    return keep(doc.loadOutline(), 0);
  } catch {
    // An outline MuPDF cannot read leaves the part without bookmarks, not without pages.
    return [];
  }
}

function destinationOf(doc: PdfDocument, uri: string | undefined): LinkDest | undefined {
  if (uri === undefined || !uri.startsWith("#")) return undefined;
  try {
    return doc.resolveLinkDestination(uri);
  } catch {
    return undefined;
  }
}

/** Replaces the document's outline with `bookmarks`. */
function writeBookmarks(doc: PdfDocument, bookmarks: KeptBookmark[]): void {
  doc.getTrailer().get("Root").delete("Outlines");
  if (bookmarks.length === 0) return;
  const iterator = doc.outlineIterator();
  const insert = (items: KeptBookmark[]): void => {
    for (const item of items) {
      // insert() adds before the iterator's position, so the iterator stays at the end of this level.
      iterator.insert({ title: item.title, uri: doc.formatLinkURI(item.dest), open: item.open });
      if (item.children.length > 0) {
        iterator.prev();
        iterator.down();
        insert(item.children);
        iterator.up();
        iterator.next();
      }
    }
  };
  insert(bookmarks);
}
