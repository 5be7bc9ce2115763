import { type Static, Type } from "@sinclair/typebox";
import { livemodeMember } from "./test-output.js";

/*
 * The JSON that PDF to Markdown writes with format "json": a document's blocks in reading order, each
 * with its page and box, for retrieval pipelines that want more than the Markdown text. The OpenAPI
 * document carries it as components.schemas.MarkdownDocument; the engine's tests validate real outputs
 * against it.
 */

export const markdownElementTypes = [
  "heading",
  "paragraph",
  "list",
  "table",
  "figure",
  "caption",
  "header",
  "footer",
  "footnote",
  "formula",
  "code",
] as const;

export type MarkdownElementType = (typeof markdownElementTypes)[number];

const BBox = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description:
    "[x0, y0, x1, y1] in PDF points, origin at the top left of the page as a viewer shows it, y downwards.",
});

const Page = Type.Integer({ minimum: 1, description: "1-based page number." });

const Link = Type.Object(
  {
    text: Type.String({ description: "The linked text as it appears in `text`." }),
    uri: Type.String({ description: "The link's target: a URL, or #page=N for a link inside the document." }),
  },
  { additionalProperties: false },
);

const ListItem = Type.Object(
  {
    type: Type.Literal("list-item"),
    page: Page,
    bbox: BBox,
    text: Type.String({ description: "The item's text without its marker." }),
    marker: Type.String({ description: 'The marker as printed: "•", "1.", "a)"…' }),
    ordered: Type.Boolean({ description: "true when the marker is a number or a letter." }),
    level: Type.Integer({ minimum: 1, maximum: 6, description: "Nesting depth, 1 for the outermost items." }),
    links: Type.Optional(Type.Array(Link)),
  },
  { additionalProperties: false, description: "One item of a list." },
);

const TableCell = Type.Object(
  {
    row: Type.Integer({ minimum: 0, description: "0-based row of the cell's top-left corner." }),
    column: Type.Integer({ minimum: 0, description: "0-based column of the cell's top-left corner." }),
    rowSpan: Type.Integer({ minimum: 1 }),
    columnSpan: Type.Integer({ minimum: 1 }),
    text: Type.String({ description: "The cell's text; lines inside the cell joined with a space." }),
  },
  { additionalProperties: false, description: "A table cell; a merged area is one cell with its spans." },
);

export const MarkdownElement = Type.Object(
  {
    type: Type.Unsafe<MarkdownElementType>({
      type: "string",
      enum: [...markdownElementTypes],
      description:
        "What the block is. header and footer are running heads and page numbers, found by their " +
        "repetition across pages (present only with headersFooters keep); formula is a display formula " +
        "as its text.",
    }),
    page: Type.Integer({
      minimum: 1,
      description:
        "1-based page number where the block starts: a paragraph or a table that a page break cut in two is " +
        "one block, its bbox on this page.",
    }),
    bbox: BBox,
    text: Type.String({
      description:
        "The block's plain text: lines joined, hyphenation at line ends undone; a list's items and a " +
        "table's rows one per line.",
    }),
    level: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 6, description: "A heading's level, 1 the highest." }),
    ),
    items: Type.Optional(Type.Array(ListItem, { description: "A list's items in order." })),
    rows: Type.Optional(Type.Integer({ minimum: 1, description: "A table's row count." })),
    columns: Type.Optional(Type.Integer({ minimum: 1, description: "A table's column count." })),
    cells: Type.Optional(Type.Array(TableCell, { description: "A table's cells, row by row." })),
    image: Type.Optional(Type.String({ description: "A figure's PNG output name, when images is files." })),
    links: Type.Optional(Type.Array(Link, { description: "Links whose text is in this block." })),
  },
  { additionalProperties: false, description: "One block of the document, in reading order." },
);

export const MarkdownChunk = Type.Object(
  {
    text: Type.String({ description: "The chunk's Markdown." }),
    elements: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "Indexes into elements of the blocks the chunk holds, in order.",
    }),
    headings: Type.Array(Type.String(), {
      description:
        "The headings the chunk's text is under, outermost first (a chunk that opens with a heading ends with it).",
    }),
    pages: Type.Object(
      { first: Page, last: Page },
      { additionalProperties: false, description: "The pages the chunk's blocks are on." },
    ),
  },
  {
    additionalProperties: false,
    description:
      "Consecutive blocks of at most chunking.maxCharacters characters. A chunk never splits a table row " +
      "or a sentence; a single row or sentence longer than the limit is a chunk of its own.",
  },
);

export const MarkdownDocument = Type.Object(
  {
    livemode: livemodeMember,
    name: Type.String({ description: "The input file's name." }),
    pageCount: Type.Integer({ minimum: 0, description: "Pages in the input file." }),
    pages: Type.Array(Page, { description: "The pages converted, in order." }),
    ocrPages: Type.Array(Page, { description: "The pages whose text came from OCR." }),
    elements: Type.Array(MarkdownElement),
    chunks: Type.Optional(
      Type.Array(MarkdownChunk, { description: "Present when options.chunking is given." }),
    ),
  },
  {
    additionalProperties: false,
    description: "PDF to Markdown's JSON output (format json).",
  },
);

export type MarkdownDocument = Static<typeof MarkdownDocument>;
export type MarkdownElement = Static<typeof MarkdownElement>;
export type MarkdownListItem = Static<typeof ListItem>;
export type MarkdownTableCell = Static<typeof TableCell>;
export type MarkdownLink = Static<typeof Link>;
export type MarkdownChunk = Static<typeof MarkdownChunk>;
