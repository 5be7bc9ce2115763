import { run } from "@octavo/engines";
import { debianPackageOf, installedModels, ocrLanguages, osdModel, tesseractModels } from "./languages.js";

export interface OcrComponent {
  name: string;
  found: boolean;
  version?: string;
  usedFor: string;
}

interface Probe {
  name: string;
  program: string;
  args: string[];
  version: RegExp;
  usedFor: string;
}

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
  {
    name: "ghostscript",
    program: "gs",
    args: ["--version"],
    version: /^(\d+\.\d+(?:\.\d+)?)/m,
    usedFor: "OCRmyPDF's page rasteriser",
  },
  {
    name: "qpdf",
    program: "qpdf",
    args: ["--version"],
    version: /qpdf version (\S+)/,
    usedFor:
      "OCR output check (page count); with MuPDF, the shared preflight of @octavo/engines (openSource)",
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

async function probeProgram(probe: Probe): Promise<OcrComponent> {
  const result = await run(probe.program, probe.args, { timeoutMs: 15_000, memoryBytes: null }).catch(
    () => undefined,
  );
  const version = probe.version.exec(`${result?.stdout ?? ""}\n${result?.stderr ?? ""}`)?.[1];
  const found = result !== undefined && result.exitCode === 0 && version !== undefined;
  return { name: probe.name, found, ...(version === undefined ? {} : { version }), usedFor: probe.usedFor };
}
