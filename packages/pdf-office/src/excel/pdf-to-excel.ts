import { type EngineContext, type EngineInput, type EngineResult, JobFailure } from "@octavo/engines";
import { convertPdf } from "../convert.js";
import { forEachPage, PAGES_DONE_PROGRESS } from "../layout.js";
import { addPageSheet } from "./pages.js";
import { addTableSheet } from "./tables.js";

export type PdfToExcelMode = "tables" | "pages";
export const pdfToExcelModes: readonly PdfToExcelMode[] = ["tables", "pages"];

export interface PdfToExcelOptions {
  /** tables (default): one sheet per detected table; pages: one sheet per page with all its text. */
  mode: PdfToExcelMode;
}

/**
 * Converts a PDF to an .xlsx. In tables mode every table the layout analysis finds becomes a sheet, in
 * reading order, and a PDF without a table fails with no_tables; in pages mode every page becomes a sheet.
 * Numbers (thousands separators, decimal commas, percentages, currencies) and unambiguous dates are written
 * as values. Scanned pages are OCRed first.
 */
export async function pdfToExcel(
  input: EngineInput,
  options: PdfToExcelOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const mode = options.mode ?? "tables";
  if (!pdfToExcelModes.includes(mode)) {
    throw new JobFailure("invalid_input", `Unknown mode "${String(mode)}"; use "tables" or "pages".`);
  }
  return convertPdf(
    input,
    ctx,
    { extension: "xlsx", operation: "pdf-to-excel" },
    async (prepared, name, from) => {
      // Loaded here, not with the package: exceljs takes about 0.35 s of CPU to import, which every
      // Word and PowerPoint conversion (a fresh sandbox process each) paid for nothing.
      const { default: ExcelJS } = await import("exceljs");
      const workbook = new ExcelJS.Workbook();
      workbook.creator = "octavo";
      if (mode === "pages") {
        for (let index = 0; index < prepared.pages; index += 1) {
          ctx.signal?.throwIfAborted();
          addPageSheet(workbook, prepared.doc, index);
          ctx.onProgress?.(from + ((PAGES_DONE_PROGRESS - from) * (index + 1)) / prepared.pages);
        }
      } else {
        let tables = 0;
        const multiPage = prepared.pages > 1;
        await forEachPage(prepared, { images: false, tables: true }, { name, ctx, from }, (page) => {
          let indexOnPage = 0;
          for (const block of page.blocks) {
            if (block.kind !== "table") continue;
            tables += 1;
            addTableSheet(workbook, block, {
              page: page.index,
              indexOnPage,
              numberInDocument: tables,
              multiPage,
            });
            indexOnPage += 1;
          }
        });
        if (tables === 0) {
          throw new JobFailure(
            "no_tables",
            `No table was found in ${name}. Use mode "pages" to get every page's text in a sheet instead.`,
          );
        }
      }
      const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
      return { bytes, engine: "mupdf + exceljs", warnings: [] };
    },
  );
}
