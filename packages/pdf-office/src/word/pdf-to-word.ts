import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import { convertPdf } from "../convert.js";
import { forEachPage } from "../layout.js";
import { WordBuilder } from "./document.js";

/** PDF to Word takes no options (the contract's NoOptions). */
export type PdfToWordOptions = Record<string, never>;

/**
 * Converts a PDF to an editable .docx: flowing paragraphs with their fonts, headings as Heading styles,
 * pictures inline, tables as Word tables, one section per page size. Scanned pages are OCRed first.
 */
export async function pdfToWord(
  input: EngineInput,
  _options: PdfToWordOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return convertPdf(
    input,
    ctx,
    { extension: "docx", operation: "pdf-to-word" },
    async (prepared, name, from) => {
      const builder = new WordBuilder();
      await forEachPage(prepared, { images: true, tables: true }, { name, ctx, from }, (page) =>
        builder.addPage(page, prepared.ocrPages.has(page.index)),
      );
      const bytes = await builder.toBuffer(name.replace(/\.pdf$/i, ""));
      return { bytes, engine: "mupdf + docx", warnings: [] };
    },
  );
}
