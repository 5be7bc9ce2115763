import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";

/** Only web pages: a file:, data: or javascript: address must never reach the browser. */
export const httpUrlPattern = "^[hH][tT][tT][pP][sS]?://";

export const HtmlToPdfOptions = optionsObject(
  {
    url: Type.Optional(
      Type.String({
        format: "uri",
        pattern: httpUrlPattern,
        description:
          "Public http or https page to render, instead of an uploaded HTML file. Give either this or one file.",
      }),
    ),
    format: withDefault(stringEnum(["A4", "Letter", "Legal"], "Paper size."), "A4"),
    landscape: withDefault(Type.Boolean({ description: "Landscape orientation." }), false),
    margin: withDefault(stringEnum(["none", "small", "normal"], "Page margins."), "small"),
    background: withDefault(Type.Boolean({ description: "Print background colours and images." }), true),
    media: withDefault(stringEnum(["print", "screen"], "CSS media type to emulate."), "screen"),
  },
  "Options of HTML / URL to PDF.",
);
