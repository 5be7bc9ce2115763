import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineOutput,
  type EngineResult,
  JobFailure,
  pdfContentType,
} from "@octavo/engines";
import { markXlsx } from "./excel.js";
import { markOdt } from "./odf.js";
import { markPdf, pagesOf } from "./pdf.js";
import { markJson, markMarkdown, markText } from "./plain.js";
import { markPptx } from "./powerpoint.js";
import { markDocx } from "./word.js";
import { ZipPackage } from "./zip.js";

export { testModeStamp } from "./stamp.js";

/*
 * Test mode's two sandbox steps around a test job's engines: its inputs held to the page limit (and
 * stamped, for the operations whose output cannot be), then its outputs stamped (and held to the limit,
 * for what was not a countable PDF going in). Nothing a test job makes is stored unmarked: a file that
 * cannot be marked fails the job.
 */

export interface TestInputsOptions {
  /** The most pages an input PDF may have; undefined: not checked (a pipeline's last step, checked at its start). */
  pagesPerInput?: number;
  /** Stamp each PDF input (the operation's catalogue testMark "inputs"). */
  mark: boolean;
}

export interface TestOutputsOptions {
  /** Each output's content type, in the outputs' order. */
  contentTypes: string[];
  /** The test-mode limit the page check quotes. */
  pagesPerInput: number;
  /** The most pages one PDF output may have: pagesPerInput for each input it may have come from. */
  maxPages: number;
}

function tooManyPages(file: string, pages: number, limit: number): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${file} has ${pages} pages; test mode allows ${limit} pages per input file. Send a shorter file, or use a live key.`,
  );
}

/**
 * Checks each document input that is a PDF against the page limit and, when asked, returns a stamped copy
 * of each (outputs in the order of the document inputs, named as they were). Inputs of other kinds, and
 * PDFs it cannot count (encrypted, damaged), are left to the job's engine and the outputs' check.
 */
export async function prepareTestInputs(
  inputs: EngineInput[],
  options: TestInputsOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const documents = inputs.filter((input) => input.field === undefined);
  const outputs: EngineOutput[] = [];
  for (const [index, input] of documents.entries()) {
    const limit = options.pagesPerInput;
    const pages = limit === undefined ? undefined : await pagesOf(input);
    if (pages !== undefined && limit !== undefined && pages > limit) {
      throw tooManyPages(displayName(input.name), pages, limit);
    }
    if (!options.mark) continue;
    const workDir = join(ctx.workDir, String(index));
    await mkdir(workDir, { recursive: true });
    const path = await markPdf(input, { ...ctx, workDir });
    outputs.push({ path, name: input.name, contentType: pdfContentType });
  }
  return { outputs, engine: "test-mark", warnings: [] };
}

/** Returns a stamped copy of each output, named and typed as it was; PDFs are held to the page limit first. */
export async function markTestOutputs(
  files: EngineInput[],
  options: TestOutputsOptions,
  ctx: EngineContext,
): Promise<EngineResult> {
  const outputs: EngineOutput[] = [];
  for (const [index, file] of files.entries()) {
    const contentType = options.contentTypes[index] ?? "";
    const workDir = join(ctx.workDir, String(index));
    await mkdir(workDir, { recursive: true });
    const path = await markFile(file, contentType, options, { ...ctx, workDir });
    outputs.push({ path, name: file.name, contentType });
  }
  return { outputs, engine: "test-mark", warnings: [] };
}

async function markFile(
  file: EngineInput,
  contentType: string,
  options: TestOutputsOptions,
  ctx: EngineContext,
): Promise<string> {
  const name = displayName(file.name);
  const kind = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (kind === pdfContentType) {
    const pages = await pagesOf(file);
    if (pages !== undefined && pages > options.maxPages) {
      throw tooManyPages(`The output ${name}`, pages, options.pagesPerInput);
    }
  }
  try {
    if (kind === pdfContentType) return await markPdf(file, ctx);
    const path = join(ctx.workDir, "marked");
    const mark = packageMarks[kind];
    if (mark !== undefined) {
      const pkg = await ZipPackage.read(file.path, name);
      mark(pkg);
      await pkg.write(path);
      return path;
    }
    const markPlain = textMarks[kind];
    if (markPlain === undefined) throw new Error(`no test-mode mark for ${kind || "an untyped file"}`);
    await writeFile(path, markPlain(await readFile(file.path, "utf8"), name));
    return path;
  } catch (error) {
    throw new JobFailure(
      "conversion_failed",
      `${name} could not be marked "octavo test mode", as every output of a test job is, so it was not kept.`,
      { detail: error instanceof Error ? (error.stack ?? error.message) : String(error) },
    );
  }
}

const packageMarks: Record<string, (pkg: ZipPackage) => void> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": markDocx,
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": markXlsx,
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": markPptx,
  "application/vnd.oasis.opendocument.text": markOdt,
};

const textMarks: Record<string, (text: string, name: string) => string> = {
  "text/plain": markText,
  "text/markdown": markMarkdown,
  "application/json": markJson,
};
