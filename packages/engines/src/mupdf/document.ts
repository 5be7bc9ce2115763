import { readFile } from "node:fs/promises";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { limits } from "../limits.js";

export type PdfDocument = Mupdf.PDFDocument;

/** Opens a file as a PDF (never as an image or HTML, which MuPDF would also accept). Throws on failure. */
export async function openPdf(path: string): Promise<PdfDocument> {
  const mupdf = await loadMupdf();
  const bytes = await readFile(path);
  return new mupdf.PDFDocument(bytes);
}

/** Runs `use` on the opened document and frees the WASM memory afterwards. */
export async function withPdf<T>(path: string, use: (doc: PdfDocument) => T | Promise<T>): Promise<T> {
  const doc = await openPdf(path);
  try {
    return await use(doc);
  } finally {
    doc.destroy();
  }
}

/**
 * The page count, or undefined when the page tree is absurd or does not lead to its last page (a loop in
 * the tree makes /Count lie). Looking up the last page walks the tree once.
 */
export function countPages(doc: PdfDocument): number | undefined {
  try {
    const pages = doc.countPages();
    if (pages > limits.maxPages) return undefined;
    if (pages > 0) doc.findPage(pages - 1);
    return pages;
  } catch {
    // MuPDF refuses page-count bombs ("Invalid number of pages") and page-tree cycles; both are unusable.
    return undefined;
  }
}

/** "Standard V5 R6 256-bit AES" and the like, or undefined when the file is not encrypted. */
export function encryptionOf(doc: PdfDocument): string | undefined {
  const meta = doc.getMetaData("encryption");
  if (meta !== undefined && meta !== "None") return meta;
  return doc.needsPassword() ? "unknown encryption" : undefined;
}

/**
 * The subtype of a PDF 2.0 unencrypted wrapper's encrypted payload (e.g. "MicrosoftIRMServices"), or
 * undefined. Such a file shows a "this document is protected" page; the real content is an attachment.
 */
export function encryptedPayloadOf(doc: PdfDocument): string | undefined {
  const associated = doc.getTrailer().get("Root").get("AF");
  if (!associated.isArray()) return undefined;
  for (let index = 0; index < associated.length; index += 1) {
    const spec = associated.get(index);
    const relationship = spec.get("AFRelationship");
    if (relationship.isName() && relationship.asName() === "EncryptedPayload") {
      const subtype = spec.get("EP").get("Subtype");
      return subtype.isName() ? subtype.asName() : "unknown";
    }
  }
  return undefined;
}
