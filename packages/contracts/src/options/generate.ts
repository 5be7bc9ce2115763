import { Type } from "@sinclair/typebox";
import { stringEnum, withDefault } from "../schema-helpers.js";

/** Documents one Generate job makes at most: an array in options.data or in data.json longer than this is refused. */
export const maxGenerateItems = 500;

type DataItem = Record<string, unknown>;

/**
 * An object, or a list of objects: one schema whose array keywords apply to a list and whose object keywords
 * to an object (JSON Schema's keywords apply by the value's type), so the option has one type list.
 */
const Data = Type.Unsafe<DataItem | DataItem[]>({
  type: ["object", "array"],
  items: { type: "object", description: "One document's data." },
  minItems: 1,
  maxItems: maxGenerateItems,
  description:
    "The data: an object makes one document, an array of objects one document per item (at most " +
    `${maxGenerateItems}). Up to 1 MB here; larger data goes in an uploaded data.json (the data field) ` +
    "instead. Exactly one of the two.",
});

export const GenerateOptions = Type.Object(
  {
    data: Type.Optional(Data),
    format: withDefault(
      stringEnum(
        ["pdf", "docx", "xlsx", "pptx", "odt"],
        "pdf (by the same LibreOffice as the Office conversions), or the template's own format.",
      ),
      "pdf",
    ),
    fileName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "Each output's name, a template over the item's data (\"invoice-{number}\"); the extension is added. " +
          "By default the template's name, numbered in a batch.",
      }),
    ),
    merge: withDefault(
      Type.Boolean({ description: "With an array and format pdf: one PDF of every item's pages, in order." }),
      false,
    ),
    missing: withDefault(
      stringEnum(
        ["error", "empty"],
        "A placeholder with no value in the data: error fails the job naming each one, empty leaves it blank.",
      ),
      "error",
    ),
    locale: withDefault(
      Type.String({
        minLength: 2,
        maxLength: 35,
        pattern: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        description: 'The BCP 47 locale of the date, number and currency formatters ("de-DE").',
      }),
      "en-US",
    ),
    timeZone: withDefault(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: "^[A-Za-z0-9_+/-]+$",
        description: 'The IANA time zone dates are shown in ("Europe/Berlin").',
      }),
      "UTC",
    ),
  },
  {
    additionalProperties: false,
    description:
      "Options of Generate document. The data is needed as options.data or as an uploaded data.json (the data " +
      "field), exactly one of the two (400 invalid_options otherwise).",
    // Valid only with data, which no option requires alone: the document shows a whole request's options.
    examples: [
      { data: { number: "A-17", customer: { name: "Ada Lovelace" }, items: [{ name: "Tea", qty: 2 }] } },
    ],
  },
);

/** The rules between options the schema cannot say (see option-rules.ts). */
export function generateOptionsProblem(options: Record<string, unknown>): string | undefined {
  if (options.merge === true && options.format !== undefined && options.format !== "pdf") {
    return "merge: only PDFs are merged; leave format as pdf, or drop merge.";
  }
  if (options.locale !== undefined && !supportedLocale(String(options.locale))) {
    return `locale: "${String(options.locale)}" is not a locale this server formats; send a BCP 47 tag such as "en-US" or "de-DE".`;
  }
  if (options.timeZone !== undefined && !knownTimeZone(String(options.timeZone))) {
    return `timeZone: "${String(options.timeZone)}" is not an IANA time zone; send one such as "UTC" or "Europe/Berlin".`;
  }
  return undefined;
}

function supportedLocale(locale: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length === 1;
  } catch {
    return false;
  }
}

function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}
