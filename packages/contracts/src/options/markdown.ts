import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";
import { ocrLanguageList } from "./ocr.js";
import { pageList } from "./pages.js";

export const markdownFormats = ["markdown", "json", "text"] as const;

export const PdfToMarkdownOptions = optionsObject(
  {
    format: withDefault(
      stringEnum(
        markdownFormats,
        "markdown: GitHub-flavoured Markdown (<name>.md); json: every block in reading order with its page, " +
          "box and type (<name>.json, the MarkdownDocument schema); text: plain text, a blank line between " +
          "blocks (<name>.txt).",
      ),
      "markdown",
    ),
    pages: Type.Optional(pageList('Pages to convert, e.g. "1-3, 5". Omitted: all pages, in order.')),
    images: withDefault(
      stringEnum(
        ["none", "placeholder", "files"],
        "none: figures are left out (their captions stay); placeholder: an <!-- image --> line where each " +
          "figure is; files: each figure is also a PNG output (<name>-figure-<n>.png), linked from the " +
          "Markdown by that name.",
      ),
      "placeholder",
    ),
    pageBreaks: withDefault(
      Type.Boolean({
        description:
          "Mark where each page starts: <!-- page N --> in Markdown, a form feed between pages in text.",
      }),
      false,
    ),
    headersFooters: withDefault(
      stringEnum(
        ["drop", "keep"],
        "Running headers, footers and page numbers, found by their repetition across pages: drop leaves " +
          "them out; keep writes them where they are.",
      ),
      "drop",
    ),
    ocr: withDefault(
      stringEnum(
        ["auto", "always", "never"],
        "auto: pages with no text layer are OCRed first; always: every page is OCRed, replacing its text " +
          "layer's reading; never: pages without text give no text.",
      ),
      "auto",
    ),
    languages: ocrLanguageList(),
    chunking: Type.Optional(
      Type.Object(
        {
          maxCharacters: Type.Integer({
            minimum: 200,
            maximum: 100_000,
            description: "The longest chunk, in characters of its Markdown.",
          }),
        },
        {
          additionalProperties: false,
          description:
            "Group the blocks into chunks for retrieval (format json only): a chunk never splits a table " +
            "row or a sentence, and carries its heading path and pages. Omitted: no chunks.",
        },
      ),
    ),
  },
  "Options of PDF to Markdown.",
);
