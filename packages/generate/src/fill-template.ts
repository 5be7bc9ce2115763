import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
// The engines' modules by path: their index loads MuPDF and the PDF tools, a tenth of a second per job.
import { JobFailure } from "@octavo/engines/errors";
import { displayName, safeFileName, stemOf, UniqueNames } from "@octavo/engines/names";
import type { EngineContext, EngineInput, EngineResult } from "@octavo/engines/types";
import type PizZip from "pizzip";
import { dataItems } from "./data.js";
import { ExpressionError, lookup, parseExpression } from "./expressions.js";
import { applyFormatters, checkFormatter } from "./formatters.js";
import { type FetchImage, ImageRequests, maxImageBytes, placeImages } from "./images.js";
import { OfficeTemplate, openPackage, refuseZipBomb } from "./office-template.js";
import type { PlaceholderSettings } from "./placeholder-parser.js";
import { findSlideLoops, renderDeck } from "./slides.js";
import { SheetTemplate } from "./xlsx-template.js";

/** Generate's options, as the API validated them (see @octavo/contracts GenerateOptions). */
export interface GenerateOptions {
  data?: unknown;
  format: "pdf" | "docx" | "xlsx" | "pptx" | "odt";
  fileName?: string;
  merge: boolean;
  missing: "error" | "empty";
  locale: string;
  timeZone: string;
}

export type GenerateContext = EngineContext & { urlAllowlist?: string };

/** The batch limit, as the contracts state it; the API refuses a longer options.data before this runs. */
const maxItems = 500;

const contentTypes = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
} as const;

type PackageKind = keyof typeof contentTypes;

/** What the package is, by its parts rather than its name (an .odt template arrives converted to .docx). */
function kindOf(zip: PizZip): PackageKind | undefined {
  if (zip.file("word/document.xml")) return "docx";
  if (zip.file("ppt/presentation.xml")) return "pptx";
  if (zip.file("xl/workbook.xml")) return "xlsx";
  return undefined;
}

function extensionOf(name: string): string {
  return /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase() ?? "";
}

/** The output name's template: placeholders read from the item, the rest kept as written. */
function nameFor(
  pattern: string | undefined,
  stem: string,
  data: Readonly<Record<string, unknown>>,
  index: number,
  batch: boolean,
  settings: PlaceholderSettings,
): string {
  if (pattern === undefined) return batch ? `${stem}-${index + 1}` : stem;
  const named = pattern.replace(/\{([^{}]*)\}/g, (_tag, source: string) => {
    try {
      const expression = parseExpression(source);
      for (const formatter of expression.formatters) checkFormatter(formatter);
      if (expression.left.kind === "literal") return String(expression.left.value ?? "");
      const found = lookup(expression.left.path, [data]);
      if (!found.found && settings.missing === "error") {
        throw new ExpressionError(
          `no value for {${source.trim()}} in ${batch ? `item ${index + 1} of ` : ""}the data`,
        );
      }
      return String(applyFormatters(found.found ? found.value : "", expression.formatters, settings) ?? "");
    } catch (error) {
      throw new JobFailure(
        "invalid_options",
        `fileName "${pattern}" cannot be made: ${error instanceof Error ? error.message : String(error)}.`,
      );
    }
  });
  return safeFileName(named, batch ? `${stem}-${index + 1}` : stem);
}

/**
 * Fetches pictures' http(s) URLs under the outbound policy. Its module (the HTTP client, a sixth of a second
 * to load) is imported on the first such picture, not for every template.
 */
function outboundFetch(ctx: GenerateContext): FetchImage {
  let fetcher: Promise<FetchImage> | undefined;
  const load = async (): Promise<FetchImage> => {
    const { downloadUrl, parseAllowlist } = await import("@octavo/net");
    const allowlist = parseAllowlist(ctx.urlAllowlist);
    return async (url) => {
      const download = await downloadUrl(url, {
        allowlist,
        maxBytes: maxImageBytes,
        timeoutMs: 20_000,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      const chunks: Buffer[] = [];
      for await (const chunk of download.body) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    };
  };
  return async (url) => {
    fetcher ??= load();
    return (await fetcher)(url);
  };
}

/**
 * POST /v1/generate's templating, in a sandbox process: the template filled once per data item, each
 * document written in the template's package format. The worker's LibreOffice then makes the PDFs (or the
 * ODT) and merges them when asked (apps/worker, resident/generate.ts).
 */
export async function fillTemplate(
  inputs: readonly EngineInput[],
  options: GenerateOptions,
  ctx: GenerateContext,
): Promise<EngineResult> {
  const template = inputs.find((input) => input.field === undefined);
  if (template === undefined) throw new Error("Generate ran without its template");
  const templateName = displayName(template.name);
  const original = extensionOf(template.name);
  if (options.format !== "pdf" && options.format !== original) {
    throw new JobFailure(
      "invalid_options",
      `format: ${templateName} is a .${original} template, so its documents come as pdf or ${original}, not ${options.format}.`,
    );
  }
  await refuseZipBomb(template.path, templateName);
  const bytes = await readFile(template.path);
  const kind = kindOf(openPackage(bytes, templateName, original === "odt" ? "docx" : original));
  if (kind === undefined) {
    throw new JobFailure("invalid_input", `${templateName} is not a Word, Excel or PowerPoint package.`);
  }
  const { items, batch } = await dataItems(
    options.data,
    inputs.find((input) => input.field === "data"),
    maxItems,
  );
  const settings: PlaceholderSettings = {
    missing: options.missing,
    locale: options.locale,
    timeZone: options.timeZone,
  };
  const fetchImage = outboundFetch(ctx);
  const render = renderer(kind, bytes, templateName, settings);

  const outDir = join(ctx.workDir, "generated");
  await mkdir(outDir, { recursive: true });
  const names = new UniqueNames(`.${kind}`);
  const stem = stemOf(template.name);
  const outputs: EngineResult["outputs"] = [];
  for (const [index, item] of items.entries()) {
    ctx.signal?.throwIfAborted();
    const itemNumber = batch ? index + 1 : undefined;
    const document = await render(item, itemNumber, fetchImage);
    const name = names.take(nameFor(options.fileName, stem, item, index, batch, settings));
    const path = join(outDir, `${index + 1}.${kind}`);
    await writeFile(path, document);
    outputs.push({ path, name, contentType: contentTypes[kind] });
    ctx.onProgress?.((index + 1) / items.length);
  }
  return { outputs, engine: kind === "xlsx" ? "octavo-xlsx" : "docxtemplater", warnings: [] };
}

type Render = (
  item: Readonly<Record<string, unknown>>,
  itemNumber: number | undefined,
  fetchImage: FetchImage,
) => Promise<Buffer>;

function renderer(
  kind: PackageKind,
  bytes: Buffer,
  templateName: string,
  settings: PlaceholderSettings,
): Render {
  if (kind === "xlsx") {
    const sheets = new SheetTemplate(bytes, templateName, settings);
    return async (item, itemNumber) => sheets.render(item, itemNumber);
  }
  if (kind === "pptx") {
    const deck = new OfficeTemplate(bytes, templateName, "pptx", settings);
    const loops = findSlideLoops(deck.freshPackage(), templateName);
    return async (item, itemNumber) =>
      renderDeck(deck, item, loops, settings.missing, itemNumber).generate({
        type: "nodebuffer",
        compression: "DEFLATE",
      });
  }
  // Pictures are placed after rendering: each render's requests are its own.
  let requests = new ImageRequests();
  const word = new OfficeTemplate(bytes, templateName, "docx", {
    ...settings,
    imageMarker: (value, tag) => requests.marker(value, tag),
  });
  return async (item, itemNumber, fetchImage) => {
    requests = new ImageRequests();
    const zip = word.render(item, itemNumber);
    await placeImages(zip, requests, fetchImage);
    return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
  };
}
