import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { JobFailure, qpdf, stemOf, UniqueNames } from "@octavo/engines";
import type { OfficeConverter } from "@octavo/office";
import type { EngineTask, SandboxResult, TaskOutput } from "../sandbox/protocol.js";

/** The sandbox step before the resident engine (RunnerSpec's prepare), run on the inputs it is given. */
export type PrepareStep = (inputs: EngineTask["inputs"]) => Promise<SandboxResult>;

const PDF = "application/pdf";
const ODT = "application/vnd.oasis.opendocument.text";

/** The prepare step's failure, which is the job's as it is. */
export class PrepareFailed extends Error {
  constructor(readonly result: Extract<SandboxResult, { type: "failed" }>) {
    super(result.message);
  }
}

function outputsOf(result: SandboxResult): TaskOutput[] {
  if (result.type === "failed") throw new PrepareFailed(result);
  return result.outputs;
}

/**
 * POST /v1/generate on a worker: an .odt template becomes .docx (LibreOffice), the templating runs in a
 * fresh sandbox process, and LibreOffice makes each document a PDF (merged by qpdf when asked) or an ODT.
 */
export async function generateDocuments(
  task: EngineTask<"generate">,
  converter: () => OfficeConverter,
  prepare: PrepareStep,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
): Promise<{ outputs: TaskOutput[]; warnings: string[] }> {
  const { options } = task;
  const inputs = await Promise.all(
    task.inputs.map(async (input) => {
      if (input.field !== undefined || !/\.odt$/i.test(input.name)) return input;
      const dir = join(task.workDir, "template");
      await mkdir(dir, { recursive: true });
      // The name stays the template's: the templating allows format "odt" for it.
      return { ...(await converter().convert(input, dir, signal, "docx")), name: input.name };
    }),
  );
  const filled = outputsOf(await prepare(inputs));
  onProgress(0.3);
  if (options.format !== "pdf" && options.format !== "odt") return { outputs: filled, warnings: [] };
  const converted = await convertEach(filled, options.format, converter(), task.workDir, signal, (done) =>
    onProgress(0.3 + (0.6 * done) / filled.length),
  );
  if (!options.merge || converted.outputs.length === 1) return converted;
  return { outputs: [await mergePdfs(converted.outputs, task, signal)], warnings: converted.warnings };
}

async function convertEach(
  documents: readonly TaskOutput[],
  target: "pdf" | "odt",
  converter: OfficeConverter,
  workDir: string,
  signal: AbortSignal,
  onConverted: (done: number) => void,
): Promise<{ outputs: TaskOutput[]; warnings: string[] }> {
  const names = new UniqueNames(`.${target}`);
  const outputs: TaskOutput[] = [];
  const warnings: string[] = [];
  for (const [index, document] of documents.entries()) {
    const outDir = join(workDir, "converted", String(index));
    await mkdir(outDir, { recursive: true });
    const converted = await converter.convert(document, outDir, signal, target);
    outputs.push({
      path: converted.path,
      name: names.take(stemOf(document.name)),
      contentType: target === "pdf" ? PDF : ODT,
    });
    warnings.push(...converted.warnings);
    onConverted(index + 1);
  }
  return { outputs, warnings };
}

async function mergePdfs(
  pdfs: readonly TaskOutput[],
  task: EngineTask<"generate">,
  signal: AbortSignal,
): Promise<TaskOutput> {
  const path = join(task.workDir, "merged.pdf");
  const outcome = await qpdf(["--empty", "--pages", ...pdfs.map((pdf) => pdf.path), "--", path], { signal });
  if (!outcome.ok) {
    throw new JobFailure("conversion_failed", "The generated PDFs could not be merged.", {
      detail: outcome.stderr,
    });
  }
  const template = task.inputs.find((input) => input.field === undefined);
  return { path, name: `${stemOf(template?.name ?? "documents")}.pdf`, contentType: PDF };
}
