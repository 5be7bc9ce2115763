import { createRequire } from "node:module";
import { Type } from "@sinclair/typebox";
import { inputLimits } from "../limits.js";
import { stringEnum, withDefault } from "../schema-helpers.js";
import { hexColourPattern } from "./edits.js";
import { ocrLanguageList } from "./ocr.js";
import { pageList } from "./pages.js";

/** The kinds of personal data Redact PDF finds by name, each checked beyond its shape (@octavo/redact). */
export const redactPresets = ["email", "phone", "iban", "card", "ssn", "ipv4", "ipv6"] as const;
export type RedactPreset = (typeof redactPresets)[number];

/** A string with a character other than white space: a term of only spaces would find nothing. */
export const nonBlankPattern = "\\S";

/** The largest page side PDF allows without UserUnit, in points (200 inches). */
const maxPagePoints = 14_400;

const limits = { terms: 100, termLength: 200, patterns: 20, patternLength: 500, areas: 500 } as const;

const area = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: inputLimits.maxPages, description: "The page, 1-based." }),
    rect: Type.Array(Type.Number({ minimum: 0, maximum: maxPagePoints }), {
      minItems: 4,
      maxItems: 4,
      description:
        "[x, y, width, height] in points (1/72 inch) from the top-left corner of the page as it is " +
        "displayed (its rotation and crop box applied); width and height above 0.",
    }),
  },
  {
    additionalProperties: false,
    description: 'A rectangle to clear, e.g. {"page": 1, "rect": [72, 100, 200, 14]}.',
  },
);

export const RedactOptions = Type.Object(
  {
    text: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: limits.termLength, pattern: nonBlankPattern }), {
        maxItems: limits.terms,
        description:
          "Exact strings to remove wherever they occur, a term's words also across line breaks and a word " +
          "hyphenated at a line's end.",
      }),
    ),
    caseSensitive: withDefault(
      Type.Boolean({ description: "Match text with its case; otherwise JOHN, John and john all match." }),
      false,
    ),
    wholeWords: withDefault(
      Type.Boolean({
        description: 'Match text only where no letter or digit touches it ("Ann" then leaves "Anna").',
      }),
      false,
    ),
    patterns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: limits.patternLength }), {
        maxItems: limits.patterns,
        description:
          "Regular expressions in RE2's syntax (no look-around or back-references; (?i) for any case), " +
          "matched in linear time. A pattern RE2 cannot read is refused with invalid_options.",
      }),
    ),
    presets: Type.Optional(
      Type.Array(
        stringEnum(
          redactPresets,
          "email; phone (international, and North American national form); iban (check digits); card " +
            "(payment cards: brand prefix, length and Luhn); ssn (US Social Security numbers); ipv4; ipv6.",
        ),
        {
          uniqueItems: true,
          maxItems: redactPresets.length,
          description: "Kinds of personal data to find, each checked beyond its shape so look-alikes stay.",
        },
      ),
    ),
    areas: Type.Optional(
      Type.Array(area, {
        maxItems: limits.areas,
        description:
          "Rectangles whose content is removed whole: text, image pixels, vector art, links and annotations.",
      }),
    ),
    pages: Type.Optional(
      pageList(
        'Pages searched for text, patterns and presets, e.g. "1-3, 5"; areas name their own pages. ' +
          "Omitted: all pages.",
      ),
    ),
    ocr: withDefault(
      Type.Boolean({
        description:
          "OCR the pages that are scans without a text layer first, so that text, patterns and presets are " +
          "found on them too and removed from both the new text layer and the picture's pixels.",
      }),
      false,
    ),
    languages: ocrLanguageList(),
    sanitize: withDefault(
      Type.Boolean({
        description:
          "Also remove the document metadata (Info and XMP), attachments, JavaScript, the outline " +
          "entries whose titles match, and hidden text: text outside the crop box, invisible text that is " +
          "not a scan's text layer, white text on the white page, and text under an opaque image or box.",
      }),
      true,
    ),
    fill: withDefault(
      Type.String({
        pattern: hexColourPattern,
        description: 'Colour of the boxes left where content was removed, as "#RRGGBB".',
      }),
      "#000000",
    ),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: 'Text written in each box, e.g. "REDACTED", upright as the page is displayed.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Options of Redact PDF. At least one of text, patterns, presets or areas must be given, not empty " +
      "(400 invalid_options otherwise).",
    // Valid only together: no option is required alone, so the document shows a whole request's options.
    examples: [{ text: ["Jane Doe"], presets: ["email", "phone"] }],
  },
);

type Options = Record<string, unknown>;

const listOf = (options: Options, name: string): unknown[] => {
  const value = options[name];
  return Array.isArray(value) ? value : [];
};

let re2: typeof import("re2js") | undefined;

/**
 * re2js (RE2 in JavaScript, the engine's own), loaded on the first pattern to check: its 260 KB take
 * 15-20 ms to load on a quiet machine (about 0.1 s on a busy one), which importing the contract does not
 * pay. Synchronous, as validation is: its CommonJS build.
 */
function re2js(): typeof import("re2js") {
  re2 ??= createRequire(import.meta.url)("re2js") as typeof import("re2js");
  return re2;
}

/** RE2's own reading of a pattern, as the engine compiles it: the reason it cannot, or undefined. */
function re2Problem(pattern: string): string | undefined {
  try {
    re2js().RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * What JSON Schema does not say about Redact PDF's options (run on options the schema accepted): that
 * something is asked for, that each pattern is one RE2 reads, and that each area has a size.
 */
export function redactOptionsProblem(options: Options): string | undefined {
  const rules = ["text", "patterns", "presets", "areas"];
  if (rules.every((name) => listOf(options, name).length === 0)) {
    return (
      "options: nothing to redact; give at least one of text (strings to find), patterns (RE2 regular " +
      `expressions), presets (${redactPresets.join(", ")}) or areas ` +
      '([{"page": 1, "rect": [x, y, width, height]}])'
    );
  }
  for (const [index, pattern] of listOf(options, "patterns").entries()) {
    const problem = re2Problem(String(pattern));
    if (problem !== undefined) {
      return (
        `patterns[${index}]: is not a regular expression RE2 can read (${problem}); ` +
        "RE2 has no look-around or back-references"
      );
    }
  }
  for (const [index, area] of listOf(options, "areas").entries()) {
    const [, , width = 0, height = 0] = (area as { rect: number[] }).rect;
    if (width <= 0 || height <= 0) return `areas[${index}].rect: width and height must be greater than 0`;
  }
  return undefined;
}
