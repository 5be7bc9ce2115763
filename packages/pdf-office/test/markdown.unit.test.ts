import type { MarkdownElement } from "@octavo/contracts/markdown-document";
import type { Paragraph, TextLine } from "@octavo/layout";
import { describe, expect, it } from "vitest";
import { chunkElements } from "../src/markdown/chunks.js";
import type { Draft } from "../src/markdown/draft.js";
import { flowElements } from "../src/markdown/flow.js";
import { withHangingMarkers } from "../src/markdown/hanging-markers.js";
import { assignHeadings } from "../src/markdown/headings.js";
import { toMarkdown, toText } from "../src/markdown/render.js";
import { markRunningHeads } from "../src/markdown/running-heads.js";
import { Vocabulary } from "../src/markdown/vocabulary.js";

/** A paragraph draft on a letter page; `at` is its box. */
function draft(text: string, at: { page?: number; x0?: number; y0?: number; size?: number } = {}): Draft {
  const { page = 0, x0 = 72, y0 = 300, size = 10 } = at;
  const box = { x0, y0, x1: x0 + 200, y1: y0 + size * 1.2 };
  return {
    element: { type: "paragraph", page: page + 1, bbox: [box.x0, box.y0, box.x1, box.y1], text },
    pageIndex: page,
    box,
    pageHeight: 792,
    size,
    bold: false,
    italic: false,
    recognised: false,
    headingLike: false,
    links: [],
  };
}

function listItem(marker: string, text: string, x0: number, y0: number): Draft {
  return {
    ...draft(text, { x0, y0 }),
    element: { ...draft(text).element, type: "list", text },
    listItem: { marker, left: x0 },
  };
}

describe("Vocabulary", () => {
  it("joins an end-of-line hyphen unless the document writes the compound with its hyphen", () => {
    const vocabulary = new Vocabulary();
    vocabulary.add("a well-known result and a state-of-the-art method, with an example");
    expect(vocabulary.keepsHyphen("well", "known result")).toBe(true);
    expect(vocabulary.keepsHyphen("exam", "ple")).toBe(false);
    expect(vocabulary.keepsHyphen("re", "ceive")).toBe(false);
    // The joined form seen anywhere wins: "wellknown" is a word here.
    vocabulary.add("wellknown");
    expect(vocabulary.keepsHyphen("well", "known")).toBe(false);
  });
});

describe("running heads", () => {
  it("marks text repeated in the top or bottom band, and lone page numbers, but not body text", () => {
    const drafts = [0, 1, 2, 3].flatMap((page) => [
      draft(`Annual report 2024 · page ${page + 1}`, { page, y0: 30 }),
      draft(`Body text that is different on every page number ${page}`, { page, y0: 400 }),
      draft(String(page + 1), { page, y0: 750 }),
    ]);
    markRunningHeads(drafts, 4);
    expect(drafts.map((d) => d.element.type)).toEqual(
      [0, 1, 2, 3].flatMap(() => ["header", "paragraph", "footer"]),
    );
  });

  it("marks a head that comes back only on the pages around it, not a heading below it in the same words", () => {
    const pages = Array.from({ length: 12 }, (_, page) => page);
    const body = pages.map((page) => draft(`Body text of page ${page}`, { page, y0: 400 }));
    // An appendix's head on 4 of 12 pages: too few for the whole document, but on every page around it.
    const heads = [8, 9, 10, 11].map((page) =>
      draft(`Handbook V6.0 Attachment ${page < 11 ? "A" : "B"}`, { page, y0: 30 }),
    );
    // The appendix's own title at the top of its first page: the head's words, set larger and lower.
    const title = draft("Handbook V6.0 Attachment A", { page: 8, y0: 60, size: 14 });
    const drafts = [...body, ...heads, title];
    markRunningHeads(drafts, 12);
    expect(heads.map((d) => d.element.type)).toEqual(["header", "header", "header", "header"]);
    expect(title.element.type).toBe("paragraph");
    expect(body.every((d) => d.element.type === "paragraph")).toBe(true);
  });

  it("leaves a heading alone that sits high on one page only", () => {
    const drafts = [
      draft("Chapter one", { page: 0, y0: 40 }),
      draft("Other", { page: 1, y0: 40 }),
      draft("Text", { page: 2 }),
    ];
    markRunningHeads(drafts, 3);
    expect(drafts.map((d) => d.element.type)).toEqual(["paragraph", "paragraph", "paragraph"]);
  });
});

describe("headings", () => {
  it("levels follow the font sizes, bold before regular at one size; the outline's depth wins where it names one", () => {
    const title = { ...draft("Title", { size: 20 }), headingLike: true };
    const section = { ...draft("Section", { size: 14, y0: 350 }), headingLike: true };
    const sub = { ...draft("Subsection", { size: 10, y0: 400 }), headingLike: true, bold: true };
    const body = draft("Body", { y0: 450 });
    assignHeadings([title, section, sub, body], []);
    expect([title, section, sub, body].map((d) => [d.element.type, d.element.level])).toEqual([
      ["heading", 1],
      ["heading", 2],
      ["heading", 3],
      ["paragraph", undefined],
    ]);
    const named = draft("2.1 Methods", { y0: 500 });
    assignHeadings([named], [{ title: "Methods", page: 0, depth: 1 }]);
    expect(named.element).toMatchObject({ type: "heading", level: 2 });
  });
});

describe("hanging markers", () => {
  const font = { name: "Calibri", family: "Calibri", size: 11, bold: false, italic: false, monospace: false };
  const line = (text: string, x0: number, baseline: number): TextLine => {
    const box = { x0, y0: baseline - 9, x1: x0 + 6 * text.length, y1: baseline + 2 };
    return { box, baseline, rotation: 0, spans: [{ text, box, font, color: "#000000" }] };
  };
  const paragraph = (lines: TextLine[]): Paragraph => ({
    kind: "paragraph",
    box: {
      x0: Math.min(...lines.map((l) => l.box.x0)),
      y0: Math.min(...lines.map((l) => l.box.y0)),
      x1: Math.max(...lines.map((l) => l.box.x1)),
      y1: Math.max(...lines.map((l) => l.box.y1)),
    },
    lines,
    align: "left",
    firstLineIndent: 0,
    spaceBefore: 0,
    lineHeight: 15,
  });
  const texts = (blocks: ReturnType<typeof withHangingMarkers>) =>
    blocks.map((block) =>
      block.kind === "paragraph"
        ? block.lines.map((l) => l.spans.map((s) => s.text).join("")).join(" / ")
        : "",
    );

  it("puts each bullet of a column before the line beside it, cutting the block of items it stands by", () => {
    const bullets = [260, 275, 290].map((baseline) => paragraph([line("\uf0b7", 90, baseline)]));
    const intro = paragraph([line("Here is a list:", 72, 240)]);
    const items = paragraph([
      line("Bullet 1", 108, 260),
      line("Bullet 2", 108, 275),
      line("Bullet 3", 108, 290),
    ]);
    const out = withHangingMarkers([intro, ...bullets, items]);
    expect(texts(out)).toEqual(["Here is a list:", "\uf0b7 Bullet 1", "\uf0b7 Bullet 2", "\uf0b7 Bullet 3"]);
    expect(out.map((block) => (block.kind === "paragraph" ? block.listMarker : undefined))).toEqual([
      undefined,
      "\uf0b7",
      "\uf0b7",
      "\uf0b7",
    ]);
  });

  it("joins a bare number only to the block read straight after it, a table's figure stays apart", () => {
    const label = paragraph([line("Number of portions", 120, 100)]);
    const figure = paragraph([line("2", 100, 100)]);
    expect(texts(withHangingMarkers([figure, paragraph([line("other", 300, 400)]), label]))).toEqual([
      "2",
      "other",
      "Number of portions",
    ]);
    expect(texts(withHangingMarkers([figure, label]))).toEqual(["2 Number of portions"]);
  });
});

describe("headings from the font hierarchy", () => {
  const body = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      draft(`A sentence of body text, one of many, number ${index}.`, { y0: 100 + 12 * index }),
    );

  it("takes a regular line in the document's body size for a line, whatever its page made of it", () => {
    const regular = { ...draft("A tabela 1.2 mostra as taxas de", { y0: 300 }), headingLike: true };
    const bold = { ...draft("Taxas de Resposta", { y0: 280 }), headingLike: true, bold: true };
    assignHeadings([...body(10), bold, regular], []);
    expect([bold.element.type, regular.element.type]).toEqual(["heading", "paragraph"]);
  });

  it("takes a bold line in the body size for its paragraph's run-in label unless space sets it apart", () => {
    // draft() boxes are 1.2 ems tall: text 12 points under a 10-point line's top follows at the line spacing.
    const label = { ...draft("Definition 1", { page: 1, y0: 100 }), headingLike: true, bold: true };
    const definition = draft("Ein topologischer Raum ist ein Paar (X, T).", { page: 1, y0: 112 });
    const heading = { ...draft("D. Deaths", { page: 1, y0: 200 }), headingLike: true, bold: true };
    const text = draft("Use the codes when a physician pronounces the patient dead.", { page: 1, y0: 222 });
    const last = { ...draft("Attachments", { page: 1, y0: 700 }), headingLike: true, bold: true };
    assignHeadings([...body(10), label, definition, heading, text, last], []);
    expect([label, heading, last].map((d) => d.element.type)).toEqual(["paragraph", "heading", "heading"]);
  });

  it("takes one word and a colon in the body size for a label, even with space under it", () => {
    const proof = { ...draft("Beweis:", { page: 1, y0: 100 }), headingLike: true, bold: true };
    const argument = draft("Sei U offen in X.", { page: 1, y0: 124 });
    const lead = {
      ...draft("Teaching Physician Requirements:", { page: 1, y0: 200 }),
      headingLike: true,
      bold: true,
    };
    const rule = draft("The teaching physician must be present.", { page: 1, y0: 224 });
    assignHeadings([...body(10), proof, argument, lead, rule], []);
    expect([proof, lead].map((d) => d.element.type)).toEqual(["paragraph", "heading"]);
  });

  it("keeps a contents page's entries, a lone roman numeral and a form's blank out of the headings", () => {
    const entries = ["Introduction", "Methods", "Results"].map((title, index) =>
      draft(`${title} .................... ${index + 1}`, { y0: 120 + 14 * index }),
    );
    const contents = { ...draft("Contents", { y0: 80, size: 16 }), headingLike: true };
    const chapter = { ...draft("1 Topologische Grundbegriffe", { y0: 100 }), headingLike: true, bold: true };
    const numeral = { ...draft("IV.", { page: 1 }), headingLike: true, bold: true };
    const blank = {
      ...draft("NOME DO SUPERVISOR: ________", { page: 1, y0: 500 }),
      headingLike: true,
      bold: true,
    };
    const drafts = [contents, chapter, ...entries, ...body(10), numeral, blank];
    assignHeadings(drafts, []);
    expect([contents, chapter, numeral, blank].map((d) => d.element.type)).toEqual([
      "heading",
      "paragraph",
      "paragraph",
      "paragraph",
    ]);
  });
});

describe("flow", () => {
  it("nests list items by their indent and drops running heads unless kept", () => {
    const drafts = [
      listItem("•", "first", 72, 100),
      listItem("–", "inner", 90, 112),
      listItem("•", "second", 72, 124),
      {
        ...draft("Page 3", { y0: 760 }),
        element: { ...draft("").element, type: "footer" as const, text: "Page 3" },
      },
    ];
    const [list, ...rest] = flowElements(drafts, false);
    expect(rest).toEqual([]);
    expect(list?.element.items?.map((item) => [item.level, item.text])).toEqual([
      [1, "first"],
      [2, "inner"],
      [1, "second"],
    ]);
    expect(
      toMarkdown([list?.element as MarkdownElement], { images: "placeholder", pageBreaks: undefined }),
    ).toBe("- first\n  - inner\n- second\n");
  });

  it("joins a table a page break cut in two, without the header row the page repeated", () => {
    const table = (page: number, rows: string[][], columnEdges = [72, 200, 330, 460]): Draft => ({
      ...draft("", { page, y0: 100 }),
      element: {
        type: "table",
        page: page + 1,
        bbox: [72, 100, 460, 700],
        text: rows.map((row) => row.join("\t")).join("\n"),
        rows: rows.length,
        columns: 3,
        cells: rows.flatMap((row, r) =>
          row.map((text, column) => ({ row: r, column, rowSpan: 1, columnSpan: 1, text })),
        ),
      },
      columnEdges,
    });
    const header = ["Feature", "Action", "Comment"];
    const footer = {
      ...draft("Page 1", { y0: 760 }),
      element: { ...draft("").element, type: "footer" as const, text: "Page 1" },
    };
    const out = flowElements(
      [
        table(0, [header, ["a", "b", "c"]]),
        footer,
        table(1, [header, ["d", "e", "f"]]),
        table(2, [["g", "h", "i"]]),
        // Columns elsewhere: another table, though it follows straight on.
        table(3, [["x", "y", "z"]], [72, 120, 330, 460]),
      ],
      true,
    );
    expect(out.map((d) => [d.element.type, d.element.page, d.element.rows])).toEqual([
      ["table", 1, 4],
      ["footer", 1, undefined],
      ["table", 4, 1],
    ]);
    expect(out[0]?.element.text).toBe("Feature\tAction\tComment\na\tb\tc\nd\te\tf\ng\th\ti");
    expect(
      out[0]?.element.cells?.filter((cell) => cell.column === 0).map((cell) => [cell.row, cell.text]),
    ).toEqual([
      [0, "Feature"],
      [1, "a"],
      [2, "d"],
      [3, "g"],
    ]);
  });

  it("joins a paragraph cut by a column break, across a footnote between them", () => {
    const left = draft("the sentence goes", { x0: 72, y0: 600 });
    const note = {
      ...draft("1 A note", { x0: 72, y0: 700, size: 8 }),
      element: { ...draft("").element, type: "footnote" as const, text: "1 A note" },
    };
    const right = draft("on in the next column.", { x0: 320, y0: 80 });
    const out = flowElements([left, note, right], false);
    expect(out.map((d) => d.element.text)).toEqual(["the sentence goes on in the next column.", "1 A note"]);
  });
});

describe("rendering", () => {
  const table = (spans: boolean): MarkdownElement => ({
    type: "table",
    page: 1,
    bbox: [0, 0, 100, 100],
    text: "",
    rows: 2,
    columns: 2,
    cells: spans
      ? [
          { row: 0, column: 0, rowSpan: 1, columnSpan: 2, text: "Both" },
          { row: 1, column: 0, rowSpan: 1, columnSpan: 1, text: "a < b" },
          { row: 1, column: 1, rowSpan: 1, columnSpan: 1, text: "c" },
        ]
      : [
          { row: 0, column: 0, rowSpan: 1, columnSpan: 1, text: "A|B" },
          { row: 0, column: 1, rowSpan: 1, columnSpan: 1, text: "C" },
          { row: 1, column: 0, rowSpan: 1, columnSpan: 1, text: "1" },
          { row: 1, column: 1, rowSpan: 1, columnSpan: 1, text: "" },
        ],
  });
  const options = { images: "placeholder" as const, pageBreaks: undefined };

  it("writes a table without spans as a GFM pipe table, escaping pipes", () => {
    expect(toMarkdown([table(false)], options)).toBe("| A\\|B | C |\n| --- | --- |\n| 1 |  |\n");
  });

  it("writes a table with spans as HTML with colspan and rowspan, escaping markup", () => {
    expect(toMarkdown([table(true)], options)).toBe(
      '<table>\n<tr><th colspan="2">Both</th></tr>\n<tr><td>a &lt; b</td><td>c</td></tr>\n</table>\n',
    );
  });

  it("escapes text that Markdown would read as a heading or a list, and marks pages", () => {
    const paragraph = (text: string, page = 1): MarkdownElement => ({
      type: "paragraph",
      page,
      bbox: [0, 0, 1, 1],
      text,
    });
    expect(
      toMarkdown([paragraph("# not a heading"), paragraph("2. not a list", 2)], {
        ...options,
        pageBreaks: [1, 2],
      }),
    ).toBe("<!-- page 1 -->\n\n\\# not a heading\n\n<!-- page 2 -->\n\n2\\. not a list\n");
    expect(toMarkdown([paragraph("a \\# b and C:\\dir, <lazy> and 1 < 2")], options)).toBe(
      "a \\\\# b and C:\\dir, &lt;lazy> and 1 < 2\n",
    );
    expect(toText([paragraph("one"), paragraph("two", 2)], { ...options, pageBreaks: [1, 2] })).toBe(
      "one\n\n\ftwo\n",
    );
  });
});

describe("chunks", () => {
  const heading = (text: string, level: number, page = 1): MarkdownElement => ({
    type: "heading",
    page,
    bbox: [0, 0, 1, 1],
    text,
    level,
  });
  const paragraph = (text: string, page = 1): MarkdownElement => ({
    type: "paragraph",
    page,
    bbox: [0, 0, 1, 1],
    text,
  });

  it("starts a chunk at each heading (headings in a row together) with its heading path and pages", () => {
    const elements = [
      heading("Guide", 1),
      heading("Install", 2),
      paragraph("Run it."),
      heading("Use", 2, 2),
      paragraph("Call it.", 3),
    ];
    expect(chunkElements(elements, 1000)).toEqual([
      {
        text: "# Guide\n\n## Install\n\nRun it.",
        elements: [0, 1, 2],
        headings: ["Guide", "Install"],
        pages: { first: 1, last: 1 },
      },
      {
        text: "## Use\n\nCall it.",
        elements: [3, 4],
        headings: ["Guide", "Use"],
        pages: { first: 2, last: 3 },
      },
    ]);
  });

  it("cuts a long paragraph between sentences and a long table between rows, under its header", () => {
    const sentence = "This sentence has exactly fifty characters in it. ";
    const long = paragraph(sentence.repeat(10).trim());
    const chunks = chunkElements([long], 200);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(200);
      expect(chunk.text).toMatch(/^This sentence.*\.$/);
    }
    const rows = 30;
    const table: MarkdownElement = {
      type: "table",
      page: 1,
      bbox: [0, 0, 1, 1],
      text: "",
      rows,
      columns: 2,
      cells: Array.from({ length: rows }, (_, row) => [
        { row, column: 0, rowSpan: 1, columnSpan: 1, text: row === 0 ? "Name" : `name ${row}` },
        { row, column: 1, rowSpan: 1, columnSpan: 1, text: row === 0 ? "Value" : `${row * 100}` },
      ]).flat(),
    };
    const parts = chunkElements([table], 200);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(200);
      expect(part.text.startsWith("| Name | Value |\n| --- | --- |\n")).toBe(true);
    }
    const bodyRows = parts.flatMap((part) => part.text.split("\n").slice(2));
    expect(bodyRows).toHaveLength(rows - 1);
  });
});
