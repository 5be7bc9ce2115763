import { stat } from "node:fs/promises";
import { JobFailure } from "@octavo/engines/errors";
import { zipBombIn } from "@octavo/office/zip-size";
import Docxtemplater from "docxtemplater";
import PizZip from "pizzip";
import { type PlaceholderSettings, placeholderParser } from "./placeholder-parser.js";
import { templateFailure } from "./template-errors.js";

/** The template formats docxtemplater fills; xlsx has its own module, odt is converted to docx first. */
export type OfficeKind = "docx" | "pptx";

/**
 * Refuses a ZIP bomb before anything is unpacked: the Office conversions' bound (inputLimits), read from the
 * package's central directory by the converter's own reader.
 */
export async function refuseZipBomb(path: string, templateName: string): Promise<void> {
  const bomb = await zipBombIn(path, (await stat(path)).size);
  if (bomb !== undefined) {
    const { unpackedBytes, size } = bomb;
    throw new JobFailure(
      "invalid_input",
      `${templateName} unpacks to ${Math.round(unpackedBytes / 1024 ** 2)} MB, ${Math.round(unpackedBytes / size)} times its size: a ZIP bomb, not a template.`,
    );
  }
}

/** Opens the template's package (ZIP bombs refused before, by refuseZipBomb), or fails the job saying it is not one. */
export function openPackage(bytes: Buffer, templateName: string, kind: string): PizZip {
  let zip: PizZip;
  try {
    zip = new PizZip(bytes);
  } catch (error) {
    throw new JobFailure(
      "invalid_input",
      `${templateName} is not a valid .${kind} package (it does not open as a ZIP archive); save it again from its application.`,
      { detail: error instanceof Error ? error.message : String(error) },
    );
  }
  const main =
    kind === "pptx" ? "ppt/presentation.xml" : kind === "xlsx" ? "xl/workbook.xml" : "word/document.xml";
  if (zip.file(main) === null || zip.file("[Content_Types].xml") === null) {
    throw new JobFailure(
      "invalid_input",
      `${templateName} is not a valid .${kind} package: it has no ${main}. Save it again as .${kind} from its application.`,
    );
  }
  return zip;
}

/**
 * A Word or PowerPoint template, compiled once and rendered once per data item. docxtemplater renders into
 * the zip it was given, so each render starts from the template's bytes.
 */
export class OfficeTemplate {
  private readonly textCache = new Map<string, string>();

  constructor(
    private readonly bytes: Buffer,
    readonly name: string,
    readonly kind: OfficeKind,
    private readonly settings: PlaceholderSettings,
  ) {
    // Compiling finds syntax errors once, before any data is read.
    this.compile(openPackage(bytes, name, kind));
  }

  /** The text of one part as docxtemplater counts its offsets (the XML's text, tags removed), for error locations. */
  textOf = (file: string): string => {
    let text = this.textCache.get(file);
    if (text === undefined) {
      text = partText(openPackage(this.bytes, this.name, this.kind).file(file)?.asText() ?? "");
      this.textCache.set(file, text);
    }
    return text;
  };

  /** A fresh package of the template, for a module that changes the parts before rendering (slide loops). */
  freshPackage(): PizZip {
    return openPackage(this.bytes, this.name, this.kind);
  }

  /** Renders one item into `zip` (by default a fresh copy of the template) and returns the package. */
  render(data: Readonly<Record<string, unknown>>, item?: number, zip = this.freshPackage()): PizZip {
    const doc = this.compile(zip, item);
    try {
      doc.render(data);
    } catch (error) {
      throw templateFailure(error, this.name, this.textOf, item);
    }
    return doc.getZip();
  }

  private compile(zip: PizZip, item?: number): Docxtemplater {
    try {
      return new Docxtemplater(zip, {
        paragraphLoop: true,
        linebreaks: true,
        parser: placeholderParser(this.settings),
        // The parser returns "" for blanks and throws for missing data: this is never reached with a value.
        nullGetter: () => "",
        errorLogging: false,
      });
    } catch (error) {
      throw templateFailure(error, this.name, this.textOf, item);
    }
  }
}

const entities: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&quot;": '"',
  "&apos;": "'",
};

function partText(xml: string): string {
  return xml
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|amp|quot|apos);/g, (entity) => entities[entity] ?? entity);
}
