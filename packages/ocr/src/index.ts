export { type OcrComponent, ocrDoctor } from "./doctor.js";
export { debianPackageOf, maxLanguages, ocrLanguages, tesseractModels } from "./languages.js";
export {
  type OcrContext,
  type OcrInput,
  type OcrOptions,
  type OcrOutput,
  type OcrResult,
  ocr,
  ocrDefaults,
} from "./ocr.js";
