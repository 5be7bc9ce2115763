import { ocrLanguages as contractLanguages } from "@octavo/contracts";
import { JobFailure, run } from "@octavo/engines";

/**
 * The spec's OCR language codes (`ocr.languages`), from the contract. Each is also the name of its
 * Tesseract model (`<code>.traineddata`): the spec chose Tesseract's own codes, `chi_sim` included.
 */
export const ocrLanguages: readonly string[] = Object.freeze([...contractLanguages]);

/** Spec code → Tesseract traineddata name (identical today; kept as a map so a renamed model is one line). */
export const tesseractModels: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(ocrLanguages.map((code) => [code, code])),
);

/** Orientation and script detection, needed by `--rotate-pages`. */
export const osdModel = "osd";

export const maxLanguages = 3;

/** Checks the option against the spec (1–3 known codes, no repeats) and returns the Tesseract models. */
export function modelsFor(languages: readonly string[]): string[] {
  if (!Array.isArray(languages) || languages.length < 1 || languages.length > maxLanguages) {
    throw new JobFailure(
      "invalid_input",
      `The languages option needs 1 to ${maxLanguages} language codes; it has ${Array.isArray(languages) ? languages.length : "none"}.`,
    );
  }
  const seen = new Set<string>();
  const models: string[] = [];
  for (const code of languages) {
    const model = typeof code === "string" ? tesseractModels[code] : undefined;
    if (model === undefined) {
      throw new JobFailure(
        "invalid_input",
        `The language "${String(code).slice(0, 40)}" is not supported; use up to ${maxLanguages} of: ${ocrLanguages.join(", ")}.`,
      );
    }
    if (seen.has(model)) continue;
    seen.add(model);
    models.push(model);
  }
  return models;
}

let installed: Promise<Set<string>> | undefined;

/** The models Tesseract can load (`tesseract --list-langs`), asked once per process. */
export function installedModels(): Promise<Set<string>> {
  installed ??= listModels().catch((error: unknown) => {
    installed = undefined;
    throw error;
  });
  return installed;
}

async function listModels(): Promise<Set<string>> {
  const result = await run("tesseract", ["--list-langs"], { timeoutMs: 15_000, memoryBytes: null });
  if (result.exitCode !== 0) {
    throw new Error(`tesseract --list-langs exited ${result.exitCode ?? result.signal}: ${result.stderr}`);
  }
  // The first line is "List of available languages in "<dir>" (N):".
  const lines = `${result.stdout}\n${result.stderr}`.split("\n").map((line) => line.trim());
  return new Set(lines.filter((line) => /^[A-Za-z0-9_]+$/.test(line)));
}

/** Fails the job clearly when a model it needs is not installed (a server set-up problem, not the file's). */
export async function requireModels(models: readonly string[]): Promise<void> {
  let available: Set<string>;
  try {
    available = await installedModels();
  } catch (error) {
    throw new JobFailure(
      "conversion_failed",
      "OCR is not available on this server: Tesseract could not be started. Ask the operator to install tesseract-ocr.",
      { detail: String(error), cause: error },
    );
  }
  const missing = models.filter((model) => !available.has(model));
  if (missing.length > 0) {
    throw new JobFailure(
      "conversion_failed",
      `OCR language data is not installed on this server for ${missing.join(", ")}; ask the operator to install ${missing.map(debianPackageOf).join(" ")}.`,
    );
  }
}

/** The Debian package that ships a model: tesseract-ocr-chi-sim for chi_sim. */
export function debianPackageOf(model: string): string {
  return `tesseract-ocr-${model.replaceAll("_", "-")}`;
}
