import { Type } from "@sinclair/typebox";
import { optionsObject, stringEnum, withDefault } from "../schema-helpers.js";
import { pageList } from "./pages.js";

const edgePositions = [
  "top-left",
  "top-center",
  "top-right",
  "bottom-left",
  "bottom-center",
  "bottom-right",
] as const;

/** Six-digit hex colour; the option's error detail quotes the pattern's description. */
export const hexColourPattern = "^#[0-9A-Fa-f]{6}$";
/** A page-number format must say where the number goes. */
export const pageNumberPattern = "\\{n\\}";

export const WatermarkOptions = optionsObject(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The watermark's text, drawn as real (selectable) text. Required.",
    }),
    fontSize: withDefault(Type.Number({ minimum: 6, maximum: 200, description: "Font size in points." }), 48),
    color: withDefault(
      Type.String({ pattern: hexColourPattern, description: 'Text colour as "#RRGGBB".' }),
      "#808080",
    ),
    opacity: withDefault(
      Type.Number({ minimum: 0.05, maximum: 1, description: "Opacity of the text, 0.05 to 1." }),
      0.3,
    ),
    rotation: withDefault(
      Type.Number({
        minimum: -90,
        maximum: 90,
        description: "Counter-clockwise angle of the text in degrees, as the page is seen.",
      }),
      45,
    ),
    position: withDefault(
      stringEnum(["center", ...edgePositions], "Where on each page's visible area the text is placed."),
      "center",
    ),
    pages: Type.Optional(pageList('Pages to watermark, e.g. "1-3, 5". Omitted: all pages.')),
  },
  "Options of Watermark PDF.",
);

export const PageNumbersOptions = optionsObject(
  {
    format: withDefault(
      Type.String({
        minLength: 1,
        maxLength: 50,
        pattern: pageNumberPattern,
        description:
          'The text of each number: {n} is the number, {total} the count of numbered pages, e.g. "Page {n} of {total}".',
      }),
      "{n}",
    ),
    position: withDefault(
      stringEnum(edgePositions, "Where on each page the number is placed."),
      "bottom-center",
    ),
    start: withDefault(
      Type.Integer({ minimum: 1, maximum: 100_000, description: "The number of the first numbered page." }),
      1,
    ),
    pages: Type.Optional(pageList('Pages to number, e.g. "2-10". Omitted: all pages.')),
    fontSize: withDefault(Type.Number({ minimum: 6, maximum: 72, description: "Font size in points." }), 10),
    margin: withDefault(stringEnum(["small", "normal"], "Distance from the page's edges."), "normal"),
  },
  "Options of Add page numbers.",
);

export const FlattenOptions = optionsObject(
  {
    forms: withDefault(
      Type.Boolean({ description: "Turn form fields and their values into page content." }),
      true,
    ),
    annotations: withDefault(
      Type.Boolean({
        description: "Turn annotations (comments, highlights, stamps, links) into page content.",
      }),
      true,
    ),
  },
  "Options of Flatten PDF.",
);

const metadataText = (description: string) => Type.Optional(Type.String({ maxLength: 1000, description }));

export const MetadataOptions = optionsObject(
  {
    title: metadataText("Document title."),
    author: metadataText("Author."),
    subject: metadataText("Subject (description)."),
    creator: metadataText("The application that created the document."),
    keywords: Type.Optional(
      Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50, description: "Keywords, up to 50." }),
    ),
    remove: withDefault(
      Type.Boolean({
        description: "Remove all document metadata (Info and XMP) first, then write what is given.",
      }),
      false,
    ),
  },
  "Options of Edit metadata.",
);
