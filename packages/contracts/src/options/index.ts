import type { TObject } from "@sinclair/typebox";
import type { OperationId } from "../operation-ids.js";
import type { OptionsAfterDefaults } from "../schema-helpers.js";
import { CompressOptions } from "./compress.js";
import { FlattenOptions, MetadataOptions, PageNumbersOptions, WatermarkOptions } from "./edits.js";
import { HtmlToPdfOptions } from "./html-to-pdf.js";
import { ImageToPdfOptions, PdfToImageOptions } from "./images.js";
import { NoOptions } from "./no-options.js";
import { OcrOptions } from "./ocr.js";
import { RotateOptions, SplitOptions } from "./pages.js";
import { PdfToExcelOptions, PdfToPdfaOptions } from "./pdf-conversions.js";
import { ProtectOptions, UnlockOptions } from "./security.js";

/** The options schema of every operation, keyed by id so `OptionsOf` can look the type up. */
export const optionsSchemas = {
  merge: NoOptions,
  split: SplitOptions,
  rotate: RotateOptions,
  compress: CompressOptions,
  repair: NoOptions,
  ocr: OcrOptions,
  "word-to-pdf": NoOptions,
  "powerpoint-to-pdf": NoOptions,
  "excel-to-pdf": NoOptions,
  "html-to-pdf": HtmlToPdfOptions,
  "pdf-to-word": NoOptions,
  "pdf-to-powerpoint": NoOptions,
  "pdf-to-excel": PdfToExcelOptions,
  "pdf-to-pdfa": PdfToPdfaOptions,
  protect: ProtectOptions,
  unlock: UnlockOptions,
  "pdf-to-image": PdfToImageOptions,
  "image-to-pdf": ImageToPdfOptions,
  watermark: WatermarkOptions,
  "page-numbers": PageNumbersOptions,
  flatten: FlattenOptions,
  metadata: MetadataOptions,
} as const satisfies Record<OperationId, TObject>;

/** An operation's options as the engines receive them: validated, with every default applied. */
export type OptionsOf<Id extends OperationId> = OptionsAfterDefaults<(typeof optionsSchemas)[Id]>;

export { type OcrLanguage, ocrLanguages } from "./ocr.js";
export { type PdfaLevel, pdfaLevels } from "./pdf-conversions.js";
