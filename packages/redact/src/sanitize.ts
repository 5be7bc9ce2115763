import type { Mupdf } from "@octavo/mupdf";
import { findMatches, type Rule } from "./rules.js";

/**
 * What a redacted document must not carry beside its pages: the Info dictionary and the XMP packet,
 * attachments (embedded files, associated files, file attachment annotations), JavaScript and the actions
 * that run it, and the outline entries whose titles hold a match.
 */
export function sanitizeDocument(doc: Mupdf.PDFDocument, rules: Rule[]): void {
  const trailer = doc.getTrailer();
  trailer.delete("Info");
  const root = trailer.get("Root");
  for (const key of ["Metadata", "AF", "AA", "OpenAction"]) root.delete(key);
  const names = root.get("Names");
  if (names.isDictionary()) {
    names.delete("EmbeddedFiles");
    names.delete("JavaScript");
  }
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = doc.loadPage(index);
    try {
      page.getObject().delete("AA");
      for (const annotation of page.getAnnotations()) {
        if (annotation.getType() === "FileAttachment") page.deleteAnnotation(annotation);
      }
    } finally {
      page.destroy();
    }
  }
  pruneOutline(doc, rules);
}

function titleMatches(title: string | undefined, rules: Rule[]): boolean {
  return title !== undefined && rules.some((rule) => findMatches(title, rule).length > 0);
}

/** Deletes every outline entry whose title holds a match (its children go with it). */
function pruneOutline(doc: Mupdf.PDFDocument, rules: Rule[]): void {
  if (rules.length === 0) return;
  const iterator = doc.outlineIterator();
  try {
    visit(iterator, rules, 0);
  } finally {
    iterator.destroy();
  }
}

function visit(
  iterator: ReturnType<Mupdf.PDFDocument["outlineIterator"]>,
  rules: Rule[],
  depth: number,
): void {
  if (depth > 64) return;
  for (let steps = 0; steps < 100_000; steps += 1) {
    const item = iterator.item();
    if (item === null) return;
    if (titleMatches(item.title, rules)) {
      // delete() moves to the next item, or to nothing at the end of this level.
      if (iterator.delete() !== 0) return;
      continue;
    }
    const down = iterator.down();
    if (down === 0) visit(iterator, rules, depth + 1);
    // At an item or at the empty place below one, it moved down: back up to the parent.
    if (down >= 0) iterator.up();
    if (iterator.next() !== 0) return;
  }
}
