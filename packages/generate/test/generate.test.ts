import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { JobFailure } from "@octavo/engines";
import { corpusPath, createTempDir, entityBombDocx, zipBombDocx } from "@octavo/testing";
import { Presentation } from "@octavo/testing/presentation";
import { Document, Header, Packer, Paragraph } from "docx";
import ExcelJS from "exceljs";
import PizZip from "pizzip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compare, lookup, parseExpression } from "../src/expressions.js";
import { fillTemplate, type GenerateOptions } from "../src/fill-template.js";
import { applyFormatters } from "../src/formatters.js";

/*
 * The templating engine on its own: the placeholder language, the formatters, each package format's
 * filling read back from the written package, pictures through the outbound policy, and every OOXML file
 * of the corpus as a template (filled, or refused with a clear code; never a crash). Through the service,
 * and to PDF: apps/cli/test/documents.test.ts.
 */

let scratch: Awaited<ReturnType<typeof createTempDir>>;
let pictureServer: Server;
let pictureUrl: string;
// A 2×1 PNG.
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAEElEQVR42mP4z8DAwMDAAAAeAAH/ZJ8n4gAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  scratch = await createTempDir("octavo-generate-unit-");
  pictureServer = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "image/png" });
    response.end(png);
  });
  await new Promise<void>((resolve) => pictureServer.listen(0, "127.0.0.1", resolve));
  pictureUrl = `http://127.0.0.1:${(pictureServer.address() as AddressInfo).port}/logo.png`;
});

afterAll(async () => {
  await new Promise((resolve) => pictureServer?.close(resolve));
  await scratch?.dispose();
});

const defaults: GenerateOptions = {
  format: "docx",
  merge: false,
  missing: "error",
  locale: "en-US",
  timeZone: "UTC",
};
let runs = 0;

async function fill(template: string, name: string, options: Partial<GenerateOptions>, urlAllowlist = "") {
  runs += 1;
  return fillTemplate(
    [{ path: template, name }],
    { ...defaults, ...options },
    {
      workDir: join(scratch.path, `run-${runs}`),
      urlAllowlist,
    },
  );
}

async function failureOf(promise: Promise<unknown>): Promise<JobFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JobFailure);
  return error as JobFailure;
}

async function word(name: string, paragraphs: string[], header?: string): Promise<string> {
  const path = join(scratch.path, name);
  const section = {
    ...(header ? { headers: { default: new Header({ children: [new Paragraph(header)] }) } } : {}),
    children: paragraphs.map((text) => new Paragraph(text)),
  };
  await writeFile(path, await Packer.toBuffer(new Document({ sections: [section] })));
  return path;
}

async function part(path: string, name: string): Promise<string> {
  return new PizZip(await readFile(path)).file(name)?.asText() ?? "";
}

function text(xml: string, element = "w:t"): string {
  return [...xml.matchAll(new RegExp(`<${element}(?:\\s[^>]*)?>([^<]*)</${element}>`, "g"))]
    .map((m) => m[1])
    .join("");
}

describe("the placeholder language", () => {
  it("parses paths, literals, a comparison and formatters, and refuses what would reach a prototype", () => {
    expect(parseExpression(" items.0.sku ")).toEqual({
      left: { kind: "path", path: ["items", "0", "sku"] },
      formatters: [],
    });
    expect(parseExpression('status == "paid" | upper').compare).toEqual({
      op: "==",
      right: { kind: "literal", value: "paid" },
    });
    expect(parseExpression("total | currency:\u201cEUR\u201d").formatters).toEqual([
      { name: "currency", args: ["EUR"] },
    ]);
    expect(parseExpression(".").left).toEqual({ kind: "path", path: [] });
    for (const hostile of [
      "__proto__",
      "a.constructor",
      "x.prototype.y",
      'constructor.constructor("return 1")()',
    ]) {
      expect(() => parseExpression(hostile), hostile).toThrow();
    }
    expect(() => parseExpression("a + b")).toThrow(/"\+" has no meaning/);
    expect(() => parseExpression("name | ")).toThrow(/formatter's name is missing/);
  });

  it("reads own properties only, innermost scope first", () => {
    const data = JSON.parse('{"name":"root","items":[{"name":"inner"}],"empty":null}');
    expect(lookup(["name"], [data.items[0], data])).toEqual({ found: true, value: "inner" });
    expect(lookup(["items", "0", "name"], [data])).toEqual({ found: true, value: "inner" });
    expect(lookup(["empty"], [data])).toEqual({ found: true, value: null });
    expect(lookup(["toString"], [data])).toEqual({ found: false });
    expect(lookup(["items", "length"], [data])).toEqual({ found: false });
    expect(lookup(["items", "5"], [data])).toEqual({ found: false });
    expect(compare(5, "==", "5")).toBe(true);
    expect(compare(10, ">", 9)).toBe(true);
    expect(compare("10", ">", "9")).toBe(false);
  });

  it("formats by locale and time zone", () => {
    const de = { locale: "de-DE", timeZone: "UTC" };
    expect(applyFormatters(1234.5, [{ name: "currency", args: ["EUR"] }], de)).toBe("1.234,50\u00a0€");
    expect(
      applyFormatters(1234.5, [{ name: "currency", args: ["usd"] }], { locale: "en-US", timeZone: "UTC" }),
    ).toBe("$1,234.50");
    expect(applyFormatters("0.125", [{ name: "percent", args: [1] }], de)).toBe("12,5\u00a0%");
    expect(applyFormatters(3, [{ name: "number", args: [2] }], de)).toBe("3,00");
    // A calendar day is that day in any zone; an instant is shown in the zone asked for.
    expect(
      applyFormatters("2026-01-02", [{ name: "date", args: [] }], {
        locale: "en-US",
        timeZone: "Pacific/Honolulu",
      }),
    ).toBe("Jan 2, 2026");
    expect(
      applyFormatters("2026-01-02T03:00:00Z", [{ name: "date", args: ["short", "short"] }], {
        locale: "en-GB",
        timeZone: "America/New_York",
      }),
    ).toBe("01/01/2026, 22:00");
    expect(() => applyFormatters("soon", [{ name: "date", args: [] }], de)).toThrow(/ISO 8601/);
    expect(() => applyFormatters("x", [{ name: "number", args: [] }], de)).toThrow(/formats numbers/);
  });
});

describe("Word templates", () => {
  it("fills nested loops, line breaks, and names the output from fileName per item", async () => {
    const template = await word("orders.docx", [
      "{#orders}Order {id} for {customer}:",
      "{#lines}- {sku} x{qty}",
      "{/lines}{/orders}",
      "Note: {note}",
    ]);
    const data = [
      {
        customer: "Ada",
        note: "line one\nline two",
        orders: [
          {
            id: 1,
            lines: [
              { sku: "A", qty: 2 },
              { sku: "B", qty: 1 },
            ],
          },
        ],
      },
      { customer: "Alan", note: "", orders: [] },
    ];
    const result = await fill(template, "orders.docx", { data, fileName: "orders-{customer | lower}" });
    expect(result.outputs.map((output) => output.name)).toEqual(["orders-ada.docx", "orders-alan.docx"]);
    const first = await part(result.outputs[0]?.path ?? "", "word/document.xml");
    expect(text(first)).toBe("Order 1 for Ada:- A x2- B x1Note: line oneline two");
    expect(first).toContain("<w:br/>");
    expect(text(await part(result.outputs[1]?.path ?? "", "word/document.xml"))).toBe("Note: ");
  });

  it("names a header's missing placeholder as in a page header, every missing one at once", async () => {
    const template = await word("letter.docx", ["Dear {name}, {greeting}"], "{company} letterhead");
    const failure = await failureOf(fill(template, "letter.docx", { data: { name: "Ada" } }));
    expect(failure.code).toBe("invalid_options");
    expect(failure.message).toContain("{greeting} in the document body");
    expect(failure.message).toContain("{company} in a page header, at its start");
    expect(failure.message).toContain('send missing: "empty"');
    const batchFailure = await failureOf(
      fill(template, "letter.docx", { data: [{ name: "A", greeting: "hi", company: "C" }, { name: "B" }] }),
    );
    expect(batchFailure.message).toMatch(/^The data \(item 2 of the data\) has no value for 2 placeholders/);
  });

  it("tells a value a formatter cannot take as the data's fault, and leaves a missing formatted value blank", async () => {
    const template = await word("amount.docx", ['Total: {total | currency:"EUR"}.']);
    const failure = await failureOf(fill(template, "amount.docx", { data: { total: "lots" } }));
    expect(failure.code).toBe("invalid_options");
    expect(failure.message).toMatch(
      /does not fit amount\.docx: \{total \| currency:"EUR"\} in the document body.*"lots" is not one/,
    );
    const blank = await fill(template, "amount.docx", { data: {}, missing: "empty" });
    expect(text(await part(blank.outputs[0]?.path ?? "", "word/document.xml"))).toBe("Total: .");
  });

  it("places pictures from data URLs and allowed URLs, and refuses a private address the policy has not allowed", async () => {
    const template = await word("pictures.docx", ["Logo: {%logo} and {%remote}"]);
    const data = {
      logo: `data:image/png;base64,${png.toString("base64")}`,
      remote: { src: pictureUrl, height: 50 },
    };
    const result = await fill(template, "pictures.docx", { data }, "127.0.0.1");
    const zip = new PizZip(await readFile(result.outputs[0]?.path ?? ""));
    const media = Object.keys(zip.files).filter((name) => name.startsWith("word/media/"));
    expect(media).toHaveLength(2);
    const document = zip.file("word/document.xml")?.asText() ?? "";
    // 2×1 px at 96 dpi is 1.5×0.75 pt; 50 pt high keeps the 2:1 shape.
    expect(document).toContain('<wp:extent cx="19050" cy="9525"/>');
    expect(document).toContain('<wp:extent cx="1270000" cy="635000"/>');
    expect(text(document)).toBe("Logo:  and ");
    expect(zip.file("[Content_Types].xml")?.asText()).toContain('Extension="png"');

    const blocked = await failureOf(fill(template, "pictures.docx", { data }));
    expect(blocked.code).toBe("invalid_options");
    expect(blocked.message).toMatch(/The picture of \{%remote\} cannot be used: URL not allowed/);
    const notPicture = await failureOf(
      fill(template, "pictures.docx", { data: { ...data, logo: "data:image/png;base64,AAAA" } }, "127.0.0.1"),
    );
    expect(notPicture.message).toMatch(/\{%logo\} cannot be used: .*send PNG, JPEG or GIF/);
  });
});

describe("PowerPoint and Excel templates", () => {
  it("repeats a loop slide per item, drops it for an empty list, and names a missing list's slide", async () => {
    const deck = new Presentation();
    deck.addSlide().addText("{title}", { x: 1, y: 1, w: 8, h: 1 });
    deck.addSlide().addText("{:people}{name}", { x: 1, y: 1, w: 8, h: 1 });
    const path = join(scratch.path, "deck.pptx");
    await writeFile(path, (await deck.write({ outputType: "nodebuffer" })) as Buffer);
    const options = { format: "pptx" as const };
    const result = await fill(path, "deck.pptx", {
      ...options,
      data: { title: "Us", people: [{ name: "A" }, { name: "B" }, { name: "C" }] },
    });
    const zip = new PizZip(await readFile(result.outputs[0]?.path ?? ""));
    const presentation = zip.file("ppt/presentation.xml")?.asText() ?? "";
    const ids = [...presentation.matchAll(/<p:sldId [^>]*r:id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(4);
    const rels = zip.file("ppt/_rels/presentation.xml.rels")?.asText() ?? "";
    const slideTexts = ids.map((id) => {
      const target = new RegExp(`Id="${id}"[^>]*Target="([^"]+)"`).exec(rels)?.[1] ?? "";
      return text(zip.file(`ppt/${target.replace(/^\/?ppt\//, "")}`)?.asText() ?? "", "a:t");
    });
    expect(slideTexts).toEqual(["Us", "A", "B", "C"]);

    const empty = await fill(path, "deck.pptx", { ...options, data: { title: "Us", people: [] } });
    expect(await part(empty.outputs[0]?.path ?? "", "ppt/presentation.xml")).not.toMatch(
      /(<p:sldId [^>]*>.*){2}/s,
    );
    const missing = await failureOf(fill(path, "deck.pptx", { ...options, data: { title: "Us" } }));
    expect(missing.code).toBe("invalid_options");
    expect(missing.message).toContain("{:people} on slide 2");
  });

  it("repeats a spreadsheet row, keeps numbers numbers, moves the rows below and grows the total's range", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Lines");
    sheet.addRow(["{title}"]);
    sheet.addRow(["{#lines}{item}", "{amount}", '{amount | currency:"EUR"}{/}']);
    sheet.addRow(["Total", { formula: "SUM(B2:B2)" }, { formula: "B3*2" }]);
    sheet.mergeCells("A5:B5");
    const path = join(scratch.path, "lines.xlsx");
    await workbook.xlsx.writeFile(path);
    const lines = [
      { item: "Tea", amount: 7.5 },
      { item: "Cake", amount: 4.25 },
      { item: "Jam", amount: 9 },
    ];
    const result = await fill(path, "lines.xlsx", { format: "xlsx", data: { title: "Q4", lines } });
    const xml = await part(result.outputs[0]?.path ?? "", "xl/worksheets/sheet1.xml");
    expect(xml).toContain('<c r="B2"><v>7.5</v></c>');
    expect(xml).toMatch(/<c r="A4"[^>]*t="inlineStr"><is><t xml:space="preserve">Jam<\/t>/);
    expect(xml).toContain("<f>SUM(B2:B4)</f>");
    expect(xml).toContain("<f>B5*2</f>");
    expect(xml).toContain('<mergeCell ref="A7:B7"/>');
    expect(xml).not.toMatch(/\{/);

    const missing = await failureOf(
      fill(path, "lines.xlsx", { format: "xlsx", data: { title: "Q4", lines: [{ item: "Tea" }] } }),
    );
    expect(missing.message).toContain("{amount} in sheet 1, cell B2");
    const syntax = await failureOf(
      fill(path.replace("lines", "lines"), "lines.xlsx", { format: "xlsx", data: {}, fileName: "{a +}" }),
    );
    expect(syntax.code).toBe("invalid_options");
  });
});

describe("refusals and the corpus", () => {
  it("refuses data that is not objects, too many items, and a format the template is not", async () => {
    const template = await word("plain.docx", ["Hello"]);
    expect((await failureOf(fill(template, "plain.docx", { data: [1, 2] }))).message).toMatch(
      /item 1 is not a JSON object/,
    );
    const dataFile = join(scratch.path, "big.json");
    await writeFile(dataFile, JSON.stringify(Array.from({ length: 501 }, () => ({}))));
    const tooMany = await failureOf(
      fillTemplate(
        [
          { path: template, name: "plain.docx" },
          { path: dataFile, name: "big.json", field: "data" },
        ],
        defaults,
        {
          workDir: join(scratch.path, "too-many"),
        },
      ),
    );
    expect(tooMany.message).toMatch(/501 items, and one job makes at most 500/);
    expect((await failureOf(fill(template, "plain.docx", { data: {}, format: "pptx" }))).code).toBe(
      "invalid_options",
    );
  });

  it("refuses a ZIP bomb before unpacking it, and never expands an entity bomb", async () => {
    const bomb = join(scratch.path, "bomb.docx");
    await writeFile(bomb, zipBombDocx(1024 ** 3));
    const started = performance.now();
    const failure = await failureOf(fill(bomb, "bomb.docx", { data: {} }));
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toMatch(/^bomb\.docx unpacks to 1024 MB, \d+ times its size: a ZIP bomb/);
    expect(performance.now() - started).toBeLessThan(10_000);
    const entities = join(scratch.path, "entities.docx");
    await writeFile(entities, entityBombDocx());
    const outcome = await fill(entities, "entities.docx", { data: {} }).then(
      async (result) => (await readFile(result.outputs[0]?.path ?? "")).length,
      (error: unknown) => (error instanceof JobFailure ? error.code : String(error)),
    );
    // Either refused as no template, or written as it came: the entities stay references, never 10^9 words.
    expect(
      outcome === "invalid_input" || (typeof outcome === "number" && outcome < 100_000),
      String(outcome),
    ).toBe(true);
  });

  it("fills every OOXML file of the corpus as a template, or refuses it with invalid_input, never anything else", async () => {
    const files = (await readdir(corpusPath("office"))).filter((name) => /\.(docx|pptx|xlsx)$/.test(name));
    expect(files.length).toBeGreaterThan(8);
    const outcomes: Record<string, string> = {};
    for (const name of files) {
      const kind = name.slice(-4) as "docx" | "pptx" | "xlsx";
      outcomes[name] = await fill(corpusPath(`office/${name}`), name, {
        data: {},
        missing: "empty",
        format: kind,
      }).then(
        (result) => `filled ${result.outputs.length}`,
        (error: unknown) => (error instanceof JobFailure ? error.code : `crashed: ${String(error)}`),
      );
    }
    for (const [name, outcome] of Object.entries(outcomes))
      expect(outcome, name).toMatch(/^(filled 1|invalid_input)$/);
    // The encrypted files are no packages; the plain documents fill.
    expect(outcomes["poi_bug53475-password-is-pass.docx"]).toBe("invalid_input");
    expect(outcomes["docling_docx_rich_tables_01.docx"]).toBe("filled 1");
    expect(outcomes["poi_with_japanese.pptx"]).toBe("filled 1");
    expect(outcomes["docling_xlsx_01.xlsx"]).toBe("filled 1");
  });
});
