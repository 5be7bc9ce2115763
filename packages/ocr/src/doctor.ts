import { type EngineComponent, type Probe, probeProgram } from "@octavo/engines";
import { debianPackageOf, installedModels, ocrLanguages, osdModel, tesseractModels } from "./languages.js";

/** OCR's programs and language data; Ghostscript and qpdf are reported by the engines' doctor. */
export type OcrComponent = EngineComponent;

const probes: Probe[] = [
  {
    name: "ocrmypdf",
    program: "ocrmypdf",
    args: ["--version"],
    version: /^(\d+\.\d+(?:\.\d+)?\S*)/m,
    usedFor: "OCR: rasterises, deskews and rotates pages, runs Tesseract, grafts the text layer",
  },
  {
    name: "tesseract",
    program: "tesseract",
    args: ["--version"],
    version: /tesseract (\S+)/,
    usedFor: "OCR engine (LSTM) called by OCRmyPDF",
  },
];

/** The programs and Tesseract language data OCR uses, each with its version or why it is missing. */
export async function ocrDoctor(): Promise<OcrComponent[]> {
  const programs = await Promise.all(probes.map(probeProgram));
  const models = await installedModels().catch(() => new Set<string>());
  const languages = [...ocrLanguages.map((code) => [code, tesseractModels[code] ?? code] as const)].map(
    ([code, model]): OcrComponent => ({
      name: `tesseract language ${code} (${model}.traineddata)`,
      found: models.has(model),
      usedFor: models.has(model) ? `OCR in ${code}` : `OCR in ${code}; install ${debianPackageOf(model)}`,
    }),
  );
  const osd: OcrComponent = {
    name: `tesseract ${osdModel}.traineddata`,
    found: models.has(osdModel),
    usedFor: models.has(osdModel)
      ? "page orientation for deskew (--rotate-pages)"
      : `page orientation for deskew (--rotate-pages); install ${debianPackageOf(osdModel)}`,
  };
  return [...programs, ...languages, osd];
}
