import { JobFailure } from "@octavo/engines/errors";
import { ExpressionError } from "./expressions.js";
import { MissingData } from "./placeholder-parser.js";

/*
 * docxtemplater's errors in the client's words: the placeholder, what is wrong with it, and where in the
 * template it is (the part of the document and the text just before it).
 */

interface XtError {
  message?: string;
  properties?: {
    id?: string;
    xtag?: string;
    explanation?: string;
    file?: string;
    offset?: number;
    rootError?: unknown;
    errors?: XtError[];
  };
}

/** A part of the package as its author knows it. */
export function partName(file: string | undefined): string {
  if (file === undefined) return "the template";
  const slide = /^ppt\/slides\/slide(\d+)\.xml$/.exec(file);
  if (slide) return `slide ${slide[1]}`;
  if (/^ppt\/notesSlides\//.test(file)) return "the speaker notes";
  if (/^word\/header\d*\.xml$/.test(file)) return "a page header";
  if (/^word\/footer\d*\.xml$/.test(file)) return "a page footer";
  if (/^word\/(footnotes|endnotes)\.xml$/.test(file)) return "the notes";
  if (file === "word/document.xml") return "the document body";
  const sheet = /^xl\/worksheets\/sheet(\d+)\.xml$/.exec(file);
  if (sheet) return `sheet ${sheet[1]}`;
  return file;
}

/** The placeholder's location: the part, and the words before it when the part's text is known. */
export function locationOf(
  file: string | undefined,
  offset: number | undefined,
  textOf: (file: string) => string,
) {
  const part = partName(file);
  if (file === undefined || offset === undefined) return part;
  let text = "";
  try {
    text = textOf(file);
  } catch {
    return part;
  }
  const before = text
    .slice(Math.max(0, offset - 40), offset)
    .replace(/\s+/g, " ")
    .trim();
  return before === ""
    ? `${part}, at its start`
    : `${part}, after "${before.length >= 40 ? "…" : ""}${before}"`;
}

function describe(error: XtError, textOf: (file: string) => string): string {
  const properties = error.properties ?? {};
  const tag = properties.xtag === undefined ? "" : `{${properties.xtag}}`;
  const where = locationOf(properties.file, properties.offset, textOf);
  const root = properties.rootError;
  if (root instanceof MissingData) return `${tag || `{${root.tag}}`} in ${where}: no value in the data`;
  if (root instanceof ExpressionError) return `${tag} in ${where}: ${root.message}`;
  if (root instanceof Error) return `${tag} in ${where}: ${root.message}`;
  const explanation = properties.explanation ?? error.message ?? "the template could not be read";
  return `${tag ? `${tag} in ` : ""}${where}: ${explanation}`;
}

function flatten(error: XtError): XtError[] {
  const inner = error.properties?.errors;
  return inner && inner.length > 0 ? inner.flatMap(flatten) : [error];
}

const shown = 20;

/**
 * The job's failure for an error docxtemplater threw while compiling or rendering `templateName`, with
 * `item` the batch item's number, if any. Missing data is the data's fault (invalid_options); the rest is
 * the template's (invalid_input).
 */
export function templateFailure(
  error: unknown,
  templateName: string,
  textOf: (file: string) => string,
  item?: number,
): JobFailure {
  if (error instanceof JobFailure) return error;
  const errors = flatten(error as XtError);
  const lines = errors.slice(0, shown).map((each) => describe(each, textOf));
  if (errors.length > shown) lines.push(`and ${errors.length - shown} more`);
  const whose = item === undefined ? "" : ` (item ${item} of the data)`;
  if (errors.every((each) => each.properties?.rootError instanceof MissingData)) {
    return new JobFailure(
      "invalid_options",
      `The data${whose} has no value for ${errors.length === 1 ? "a placeholder" : `${errors.length} placeholders`} of ${templateName}: ${lines.join("; ")}. Add the values, or send missing: "empty" to leave them blank.`,
    );
  }
  // A placeholder that parsed but could not be evaluated: a value the formatter or picture cannot take.
  if (errors.every((each) => each.properties?.id === "scopeparser_execution_failed")) {
    return new JobFailure(
      "invalid_options",
      `The data${whose} does not fit ${templateName}: ${lines.join("; ")}.`,
    );
  }
  return new JobFailure(
    "invalid_input",
    `${templateName} has template errors${whose}: ${lines.join("; ")}.`,
    {
      detail: errors.map((each) => each.message).join("\n"),
    },
  );
}
