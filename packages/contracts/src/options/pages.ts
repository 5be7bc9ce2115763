import { Type } from "@sinclair/typebox";
import { pageRangesFormat, pageRangesPattern } from "../page-ranges.js";
import { integerEnum, optionsObject, withDefault } from "../schema-helpers.js";

/** The rule the pattern cannot state, said in every page list's description. */
const forwardsOnly = ' A range runs forwards: "5-2" is refused (write 2-5).';

export function pageList(description: string) {
  return Type.String({
    pattern: pageRangesPattern,
    format: pageRangesFormat,
    description: description + forwardsOnly,
  });
}

export const SplitOptions = optionsObject(
  {
    ranges: Type.Optional(
      pageList(
        'Comma-separated 1-based pages or <from>-<to> ranges, e.g. "1-3, 5, 7-9"; one output file per ' +
          "range. Omitted: one output file per page.",
      ),
    ),
  },
  "Options of Split PDF.",
);

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
