export { type CellValue, parseCellText } from "./excel/numbers.js";
export {
  type PdfToExcelMode,
  type PdfToExcelOptions,
  pdfToExcel,
  pdfToExcelModes,
} from "./excel/pdf-to-excel.js";
export { type PdfToMarkdownOptions, pdfToMarkdown } from "./markdown/pdf-to-markdown.js";
export { officeContentTypes, officeNameLike } from "./names.js";
export { type PdfToPowerPointOptions, pdfToPowerPoint } from "./powerpoint/pdf-to-powerpoint.js";
export { type PdfToWordOptions, pdfToWord } from "./word/pdf-to-word.js";
