// PDF to Markdown's engine as the benches run it in-process: loaded from the build (or a stand-in module with
// the same signature, a bench's --engine, to test the bench itself) and run on one PDF at a time. Options are
// only what a bench means to set: the engine fills in its own defaults for the rest, as the API does.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const markdownEnginePath = fileURLToPath(
  new URL("../../packages/pdf-office/dist/markdown/pdf-to-markdown.js", import.meta.url),
);

/**
 * The engine's options for born-digital PDFs, as speed.mjs times them and structure.mjs scores them: format
 * markdown, images placeholder, headersFooters drop, and ocr never (their pages have a text layer).
 */
export const bornDigitalOptions = {
  format: "markdown",
  images: "placeholder",
  headersFooters: "drop",
  ocr: "never",
};

/**
 * PDF to Markdown's entry point, pdfToMarkdown(input, options, ctx): from the build, or from `path` (a
 * stand-in). Throws when the module is missing, saying to build first.
 */
export async function loadMarkdownEngine(path = markdownEnginePath) {
  if (!existsSync(path))
    throw new Error(
      path === markdownEnginePath
        ? `${path} is missing: build @octavo/pdf-office first (pnpm exec turbo run build)`
        : `${path} is missing`,
    );
  const module = await import(pathToFileURL(path).href);
  return module.pdfToMarkdown;
}

/** A conversion's error as "code: message (detail)": a JobFailure's client-facing code, else the error's name. */
export const failureText = (error) =>
  `${error?.code ?? error?.name ?? "Error"}: ${error?.message ?? String(error)}${error?.detail ? ` (${error.detail})` : ""}`;

/**
 * Runs an engine function (engine(input, options, ctx)) on a PDF in a fresh work directory, removed after;
 * returns `{ text?, bytes, seconds, warnings }` of the first output (text for .md/.json/.txt; seconds: the
 * engine's call alone), or `{ error }` (failureText) when it throws.
 */
export async function runEngine(engine, path, options) {
  const workDir = mkdtempSync(join(tmpdir(), "octavo-bench-markdown-"));
  try {
    const started = process.hrtime.bigint();
    const result = await engine({ path, name: basename(path) }, options, { workDir });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const output = result.outputs[0];
    const bytes = readFileSync(output.path);
    const text = /\.(md|json|txt)$/.test(output.name) ? bytes.toString("utf8") : undefined;
    return { text, bytes, seconds, warnings: result.warnings ?? [] };
  } catch (error) {
    return { error: failureText(error) };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
