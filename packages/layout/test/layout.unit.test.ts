import { readFileSync } from "node:fs";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument, type ImageBlock, type PageLayout, tablesOf, tableToGrid } from "../src/index.js";
import { lineText } from "../src/lines.js";

const mupdf = await loadMupdf();

function open(file: string): Mupdf.Document {
  return mupdf.Document.openDocument(readFileSync(corpusPath(file)), "application/pdf");
}

function fail(): never {
  throw new Error("no such table");
}

function pageOf(file: string, index: number, images = false): PageLayout {
  const page = analyzeDocument(open(file), { pages: [index], images }).pages[0];
  if (!page) throw new Error(`${file}: no page ${index + 1}`);
  return page;
}

function firstPage(file: string, images = false): PageLayout {
  return pageOf(file, 0, images);
}

describe("layout blocks", () => {
  it("extracts images as PNG with their boxes", () => {
    const page = firstPage("general/docling_redp5110_sampled.pdf", true);
    const images = page.blocks.filter((b): b is ImageBlock => b.kind === "image");
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      expect([...image.data.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      expect(image.width).toBeGreaterThan(0);
      expect(image.box.x1 - image.box.x0).toBeGreaterThanOrEqual(4);
    }
    expect(firstPage("general/docling_redp5110_sampled.pdf").blocks.some((b) => b.kind === "image")).toBe(
      false,
    );
  });

  it("marks merged cells and lays tables out as rectangular grids", () => {
    const [table] = tablesOf(firstPage("tables/tabula_spanning_cells.pdf"));
    if (!table) throw new Error("no table");
    const grid = tableToGrid(table);
    expect(grid.length).toBe(table.rowEdges.length - 1);
    for (const row of grid) expect(row.length).toBe(table.columnEdges.length - 1);
    const merged = table.cells.find((c) => c.colSpan > 1 && c.text !== "");
    if (!merged) throw new Error("no merged cell");
    expect(grid[merged.row]?.[merged.col]).toBe(merged.text);
    expect(grid[merged.row]?.[merged.col + 1]).toBe("");
    // Every grid position is covered by exactly one cell.
    const covered = table.cells.reduce((n, c) => n + c.rowSpan * c.colSpan, 0);
    expect(covered).toBe(grid.length * (grid[0]?.length ?? 0));
  });

  it("finds row spans and keeps table text out of the paragraphs", () => {
    const page = firstPage("tables/camelot_row_span.pdf");
    const [table] = tablesOf(page);
    if (!table) throw new Error("no table");
    expect(table.ruled).toBe(true);
    expect(table.cells.some((c) => c.rowSpan > 1)).toBe(true);
    expect(table.cells.map((c) => c.text)).toContain("164,380");
    const paragraphText = page.blocks.flatMap((b) => (b.kind === "paragraph" ? b.lines.map(lineText) : []));
    expect(paragraphText.join("\n")).not.toContain("164,380");
  });

  it("splits body rows ruled only in rows into the columns their header's rulings draw", () => {
    // ICDAR 2013 eu-016, page 3 (tuning half): vertical lines in the header only, a line under each row.
    const page = pageOf("tables/icdar2013_eu-016.pdf", 2);
    const [table] = tablesOf(page);
    if (!table) throw new Error("no table");
    const grid = tableToGrid(table);
    expect(grid[0]).toEqual(["Country", "Domestic (%)", "Imported (%)", "Unknown (%)", "Total (n)"]);
    expect(grid[1]).toEqual(["Austria", "86.2", "13.8", "0", "3,375"]);
    expect(table.cells.every((cell) => cell.colSpan === 1)).toBe(true);
    // A title centred over its columns keeps its span (eu-018: a year over its two columns).
    const [years] = tablesOf(firstPage("tables/icdar2013_eu-018.pdf"));
    expect(years?.cells.find((cell) => cell.text === "2007")?.colSpan).toBe(2);
  });

  it("adds the edge between unruled sub-columns of a ruled column", () => {
    // ICDAR 2013 us-033 (tuning half): each ruled group holds its Male and Female columns, unruled.
    const [table] = tablesOf(firstPage("tables/icdar2013_us-033.pdf"));
    if (!table) throw new Error("no table");
    const grid = tableToGrid(table);
    // The group's name and its sub-columns' labels share a ruled cell; they are two rows.
    expect(grid[1]?.slice(1, 3)).toEqual(["Male", "Female"]);
    expect(grid[2]?.slice(0, 3)).toEqual(["2-11months", "1,087,948", "1,022,490"]);
    // The group's name runs across the new edge: it spans both sub-columns.
    expect(table.cells.find((cell) => cell.text.startsWith("Non-Hispanic white"))?.colSpan).toBe(2);
  });

  it("keeps a ruled cell's bulleted list whole, its bullets no column of their own", () => {
    // ICDAR 2013 us-015, page 2 (checking half; looked at when this rule was made): each reason cell
    // holds a list whose bullets hang left of its text.
    const grid = tableToGrid(
      tablesOf(pageOf("tables/icdar2013_us-015.pdf", 1)).find((t) =>
        t.cells.some((c) => c.text === "Item Property"),
      ) ?? fail(),
    );
    expect(grid[0]).toEqual(["Item Property", "Reason for Change or Deletion"]);
    const clarity = grid.find((row) => row[0] === "Clarity or relevance")?.[1] ?? "";
    expect(clarity.split("\n").filter((line) => line.startsWith("•"))).toHaveLength(4);
  });

  it("splits a ruled body into rows where value columns skip the label column's group headings", () => {
    // ICDAR 2013 us-008, page 3 (tuning half): one ruled body row; the labels have group headings
    // ("3-Year-Old Cohort") on lines where the value columns have nothing.
    const page = pageOf("tables/icdar2013_us-008.pdf", 2);
    const grid = tableToGrid(
      tablesOf(page).find((t) => t.cells.some((c) => c.text === "Sample Group")) ?? fail(),
    );
    expect(grid.map((row) => row[0])).toContain("3-Year-Old Cohort");
    expect(grid.find((row) => row[0] === "Control Group")?.slice(1)).toEqual(["17.3%", "82.7%", "100%"]);
  });

  it("ends a borderless table at a line of prose under it, a numbered footnote", () => {
    // ICDAR 2013 us-018, page 4 (tuning half): the footnotes "1 Since the biennial …" once joined the
    // table, and their long lines covered every gap between its columns.
    const page = pageOf("tables/icdar2013_us-018.pdf", 3);
    const [table] = tablesOf(page);
    if (!table) throw new Error("no table");
    const grid = tableToGrid(table);
    expect(grid.find((row) => row[0] === "1999")).toEqual([
      "1999",
      "3,319",
      "2,911",
      "408",
      "305",
      "222",
      "83",
    ]);
    expect(table.cells.some((cell) => cell.text.includes("Since the biennial"))).toBe(false);
  });

  it("adds value columns to a ruled table whose body rows span its first column", () => {
    // camelot's missing_values: rulings divide only the right-hand group; the values of the left
    // one, after dot leaders, once stayed inside the label cells.
    const grid = tableToGrid(tablesOf(firstPage("tables/camelot_missing_values.pdf"))[0] ?? fail());
    const row = grid.find((cells) => cells[0]?.startsWith("Any Injury")) ?? fail();
    expect(row.slice(1, 3)).toEqual(["1.9", "2.1"]);
  });

  it("finds a borderless table set in one column of a two-column page", () => {
    // camelot's us-007 (an IRS notice): prose beside the table shares its rows across the page.
    const table = tablesOf(firstPage("tables/camelot_us-007.pdf"))[0] ?? fail();
    expect(table.box.x0).toBeGreaterThan(306);
    const grid = tableToGrid(table);
    expect(grid.find((row) => row[0] === "Weekly")).toEqual(["Weekly", "$ 71.15"]);
    expect(grid.find((row) => row[0] === "Annually")).toEqual(["Annually", "3,700.00"]);
  });

  it("splits tightly set figures into the columns their alignment makes", () => {
    // ICDAR 2013 us-025, page 4 (tuning half): "1,144 193.5" are two columns 0.75 em apart.
    const table = tablesOf(pageOf("tables/icdar2013_us-025.pdf", 3))[0] ?? fail();
    const grid = tableToGrid(table);
    expect(grid.find((row) => row[0] === "District of Columbia")?.slice(0, 4)).toEqual([
      "District of Columbia",
      "1,144",
      "193.5",
      "(182.2–204.8)",
    ]);
  });

  it("leaves a chart's labels and gridlines out of the tables", () => {
    // ICDAR 2013 eu-011, page 2 (tuning half): two line charts with axis labels and gridlines.
    expect(tablesOf(pageOf("tables/icdar2013_eu-011.pdf", 1))).toEqual([]);
  });

  it("splits a ruled body into rows past a ruling that ends part-way across", () => {
    // ICDAR 2013 us-035a, page 3 (tuning half): three column groups; a rule above the last group's
    // "Total" row leaves the other groups' body as areas reaching down past it.
    const grid = tableToGrid(tablesOf(pageOf("tables/icdar2013_us-035a.pdf", 2))[0] ?? fail());
    expect(grid.find((row) => row[0] === "Under 1 year")).toEqual([
      "Under 1 year",
      "3,533,692",
      "40 years",
      "2,468,083",
      "80 years",
      "723,049",
    ]);
  });

  it("splits a ruled body into rows beside a label column ruled only around the table", () => {
    // ICDAR 2013 us-001, page 3 (tuning half): the labels' area reaches down from the header, and
    // the body's figures, set line by line, shared one row with the last header line.
    const grid = tableToGrid(tablesOf(pageOf("tables/icdar2013_us-001.pdf", 2))[0] ?? fail());
    expect(grid.find((row) => row[0]?.startsWith("Female"))?.slice(1, 6)).toEqual([
      "19.0",
      "0.3",
      "18.3",
      "0.4",
      "*–0.7",
    ]);
  });

  it("keeps a borderless table whole across the blank between its header and body", () => {
    // camelot's budget: the column headings stand apart from the first ministry's rows.
    const table = tablesOf(firstPage("tables/camelot_budget.pdf"))[0] ?? fail();
    expect(table.cells.some((cell) => cell.text === "MINISTRY OF AGRICULTURE")).toBe(true);
    expect(table.cells.some((cell) => cell.text.startsWith("Budget"))).toBe(true);
  });

  it("leaves a bulleted list as text", () => {
    // ICDAR 2013 eu-013, page 7 (tuning half): bullets in a column of their own beside one column of text.
    const tables = tablesOf(pageOf("tables/icdar2013_eu-013.pdf", 6));
    expect(tables.flatMap((t) => t.cells).some((cell) => cell.text === "•")).toBe(false);
  });

  it("keeps a narrow column of justified prose out of the table beside it", () => {
    // govdocs 064034 (an Angolan survey report), pages 26 and 56: the prose's word spaces are
    // stretched to an em and more, so its lines fell apart into fragments that lined up with the
    // table's rows across the page.
    const doc = open("general/govdocs_error_set_2_064034.pdf");
    for (const [page, label] of [
      [25, "Masculina"],
      [55, "Kwanza Sul"],
    ] as const) {
      const tables = tablesOf(analyzeDocument(doc, { pages: [page], images: false }));
      const words = tables.flatMap((t) => t.cells).map((c) => c.text);
      expect(words.some((text) => /possivelmente|proporcionalmente|conseguinte/.test(text))).toBe(false);
      const table = tables.find((t) => t.cells.some((c) => c.text === label)) ?? fail();
      const row = tableToGrid(table).find((cells) => cells[0] === label);
      expect(row?.length).toBe(4);
    }
  });

  it("keeps a table whole across a row whose label is as long as a line of prose", () => {
    // camelot's m27 (never tuned on): rows with a long name in one cell and short cells after it
    // ended the table as if they were lines of a text column, leaving it in three pieces.
    const tables = tablesOf(firstPage("tables/camelot_m27.pdf"));
    const holding = (text: string) => tables.findIndex((t) => t.cells.some((c) => c.text === text));
    expect(holding("415051")).toBeGreaterThanOrEqual(0);
    expect(holding("618693")).toBe(holding("415051"));
  });

  it("keeps the columns of a table under a header that spans them", () => {
    // ICDAR 2013 us-025, page 2 (tuning half): headers spanning columns ("American Indian/Alaska
    // native" over "no.  Rate  (95% CI)") sit over gaps that every row below keeps clear.
    const table = tablesOf(pageOf("tables/icdar2013_us-025.pdf", 1))[1] ?? fail();
    const row = tableToGrid(table).find((cells) => cells[0] === "45–54") ?? fail();
    expect(row.slice(0, 4)).toEqual(["45–54", "47", "21.8", "(16.0–29.0)"]);
  });

  it("does not take two-column prose for a table", () => {
    const doc = open("general/pdfjs_tracemonkey_with_annotations.pdf");
    expect(tablesOf(analyzeDocument(doc, { pages: [0, 1], images: false }))).toEqual([]);
  });

  it("keeps a bold heading whose colon is set in the regular face a heading", () => {
    // govdocs_error_set_1, page 82: "Teaching Physician and Resident Requirements" bold, its ":" regular.
    const paragraphs = pageOf("general/govdocs_error_set_1_316267.pdf", 81).blocks.filter(
      (b) => b.kind === "paragraph",
    );
    const firstLine = (b: (typeof paragraphs)[number]) => (b.lines[0] ? lineText(b.lines[0]) : "");
    const heading = paragraphs.find((b) => firstLine(b).startsWith("Teaching Physician"));
    expect(heading && firstLine(heading)).toBe("Teaching Physician and Resident Requirements:");
    expect(heading?.headingLevel).toBeDefined();
  });

  it("rejects a page index outside the document", () => {
    expect(() => analyzeDocument(open("tables/camelot_row_span.pdf"), { pages: [5] })).toThrow(RangeError);
  });
});
