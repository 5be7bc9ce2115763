import { Type } from "@sinclair/typebox";
import { pageRangesFormat, pageRangesPattern } from "../page-ranges.js";
import { integerEnum, optionsObject, stringEnum, withDefault } from "../schema-helpers.js";

/** The rule the pattern cannot state, said in every page list's description. */
const forwardsOnly = ' A range runs forwards: "5-2" is refused (write 2-5).';

export function pageList(description: string) {
  return Type.String({
    pattern: pageRangesPattern,
    format: pageRangesFormat,
    description: description + forwardsOnly,
  });
}

export const splitModes = ["pages", "count", "size", "bookmarks"] as const;

/** The most parts a split may make: a part per page of the longest document a job may hold. */
export const maxSplitParts = 10_000;

export const SplitOptions = optionsObject(
  {
    mode: Type.Optional(
      stringEnum(
        splitModes,
        "How the document is cut. pages (the default): one file per page, or per range of ranges. count: a " +
          "file every `pages` pages. size: each file holds as many pages as fit in maxBytes. bookmarks: a file " +
          "per outline entry at level `level`, named after its title.",
      ),
    ),
    ranges: Type.Optional(
      pageList(
        'Comma-separated 1-based pages or <from>-<to> ranges, e.g. "1-3, 5, 7-9"; one output file per ' +
          "range. Omitted: one output file per page. Mode pages only.",
      ),
    ),
    pages: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxSplitParts,
        description: "Mode count: pages per file. Required there.",
      }),
    ),
    maxBytes: Type.Optional(
      Type.Integer({
        minimum: 10_000,
        maximum: 2_000_000_000,
        description:
          "Mode size: the largest a file may be, in bytes (at least 10,000). A single page larger than this goes " +
          "in a file of its own, with a warning. Required there.",
      }),
    ),
    level: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        description:
          "Mode bookmarks: the outline level that starts a file (1, the default: the top-level entries). Pages " +
          "before the first entry go in a file of their own.",
      }),
    ),
  },
  "Options of Split PDF.",
);

const optionsOfMode: Record<(typeof splitModes)[number], { required?: string; allowed: readonly string[] }> =
  {
    pages: { allowed: ["ranges"] },
    count: { required: "pages", allowed: ["pages"] },
    size: { required: "maxBytes", allowed: ["maxBytes"] },
    bookmarks: { allowed: ["level"] },
  };

/** Each mode's own option is required there and refused elsewhere, so a misplaced one is not silently ignored. */
export function splitOptionsProblem(options: Record<string, unknown>): string | undefined {
  const mode = (options.mode ?? "pages") as (typeof splitModes)[number];
  const rule = optionsOfMode[mode];
  if (rule.required !== undefined && options[rule.required] === undefined)
    return `${rule.required}: required with mode "${mode}".`;
  for (const name of ["ranges", "pages", "maxBytes", "level"]) {
    if (options[name] !== undefined && !rule.allowed.includes(name))
      return `${name}: only applies to mode "${Object.entries(optionsOfMode).find(([, other]) => other.allowed.includes(name))?.[0]}", not "${mode}".`;
  }
  return undefined;
}

export const RotateOptions = optionsObject(
  {
    angle: withDefault(integerEnum([90, 180, 270], "Clockwise rotation in degrees."), 90),
    pages: Type.Optional(
      pageList(
        'Pages to rotate: comma-separated 1-based pages or <from>-<to> ranges, e.g. "1-3, 5". ' +
          "Omitted: all pages.",
      ),
    ),
  },
  "Options of Rotate PDF.",
);
