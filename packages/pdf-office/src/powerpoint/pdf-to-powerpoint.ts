import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines";
import { convertPdf } from "../convert.js";
import { forEachPage } from "../layout.js";
import { pageList } from "../prepare.js";
import { BackgroundRenderer } from "./background.js";
import { DeckBuilder } from "./slides.js";

/** PDF to PowerPoint takes no options (the contract's NoOptions). */
export type PdfToPowerPointOptions = Record<string, never>;

/**
 * Converts a PDF to a .pptx: one slide per page, the page's graphics (pictures, drawings, table rulings)
 * as the slide's background picture without the text, and the text as editable text boxes on top.
 * Scanned pages are OCRed first.
 */
export async function pdfToPowerPoint(
  input: EngineInput,
  _options: PdfToPowerPointOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  return convertPdf(
    input,
    ctx,
    { extension: "pptx", operation: "pdf-to-powerpoint" },
    async (prepared, name, from) => {
      const deck = new DeckBuilder();
      const renderer = await BackgroundRenderer.open(prepared.path);
      try {
        await forEachPage(prepared, { images: false, tables: true }, { name, ctx, from }, (page) =>
          deck.addPage(page, renderer.render(page.index), prepared.ocrPages.has(page.index)),
        );
      } finally {
        renderer.close();
      }
      const warnings: string[] = [];
      if (deck.scaledPages.length > 0) {
        warnings.push(
          `A presentation has one slide size: ${pageList(deck.scaledPages)} of ${name}, of another size than the first page, ${deck.scaledPages.length === 1 ? "was" : "were"} scaled to fit the slides.`,
        );
      }
      const bytes = await deck.toBuffer(name.replace(/\.pdf$/i, ""));
      return { bytes, engine: "mupdf + pptxgenjs", warnings };
    },
  );
}
