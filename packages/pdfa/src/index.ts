export { goodRecall, minimumRecall, type PdfAOptions, toPdfA } from "./convert.js";
export { isPdfALevel, type PdfALevel, pdfaLevels } from "./levels.js";
export { type PdfAValidation, validatePdfA } from "./validate.js";
