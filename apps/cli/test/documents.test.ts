import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusPath, createTempDir, runTool } from "@octavo/testing";
import { Presentation } from "@octavo/testing/presentation";
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { OpenApiDocument } from "./support/openapi-document.js";
import type { Schema } from "./support/schema-values.js";
import { type Stack, startStack } from "./support/stack.js";

/*
 * Issue 37's operations through the real API and workers. Read form and Fill form: the report in the job
 * and as fields.json against the served OpenAPI document, a government form filled and read back by qpdf,
 * the refusals the API makes at once (the options' shape) and the ones only the job can make (the
 * document's fields), and a fill in a pipeline. Split PDF's modes: each mode's options and its refusals.
 * Generate document, through the worker's sandbox and LibreOffice: templates made here with the libraries
 * the Office tests use (docx, exceljs, pptxgenjs; the ODT by LibreOffice from a DOCX), the text of every PDF
 * read back by pdftotext against the data, the refusals, and hostile templates. The engines' finer
 * behaviour is tested in packages/edit (forms), packages/engines (split) and packages/generate.
 */

const w9 = fileURLToPath(
  new URL("../../../packages/edit/test/fixtures/forms/irs-fw9-2018.pdf", import.meta.url),
);
const libreOfficeForm = corpusPath("general/samplefiles_libreoffice-form.pdf");
const geoTopo = corpusPath("general/samplefiles_GeoTopo-komprimiert.pdf"); // 117 pages, bookmarked
const page1 = "topmostSubform[0].Page1[0]";

let scratch: Awaited<ReturnType<typeof createTempDir>>;
let stack: Stack;
let client: Client;
let openApi: OpenApiDocument;

beforeAll(async () => {
  scratch = await createTempDir("octavo-forms-");
  stack = await startStack({ database: "sqlite", redis: "supervised" });
  client = new Client(stack.baseUrl, (await stack.createAccount("business")).apiKey);
  openApi = new OpenApiDocument((await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as Schema);
});

afterAll(async () => {
  await stack?.close();
  await scratch?.dispose();
});

async function runJob(path: string, file: string, options?: unknown, extra: Record<string, string> = {}) {
  const created = await client.postFiles(path, [{ path: file }], options, extra);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return client.waitForJob(String(created.body.id), 120_000);
}

const download = (url: string | undefined, name: string) => client.downloadTo(url, join(scratch.path, name));

describe("forms", () => {
  it("reads the W-9's fields into the job and fields.json, in the OpenAPI document's FormReport shape", async () => {
    const job = await runJob("/v1/forms/read", w9);
    expect(job.status, job.message).toBe("done");
    expect(job.credits).toBe(1);
    expect(job.form?.form).toBe("xfa-static");
    expect(job.form?.fields).toHaveLength(22);
    expect(openApi.allows(["components", "schemas", "FormReport"], job.form)).toBe(true);
    expect(job.outputs?.[0]?.name).toBe("fields.json");
    const file = JSON.parse(await readFile(await download(job.outputs?.[0]?.url, "fields.json"), "utf8"));
    expect(file).toEqual(job.form);
  });

  it("fills the W-9 as read: qpdf finds every value, and the filled file reads back the same", async () => {
    const values = {
      [`${page1}.f1_1[0]`]: "Jane Q. Public",
      [`${page1}.FederalClassification[0].c1_1[0]`]: true,
      [`${page1}.SSN[0].f1_13[0]`]: "6789",
    };
    const job = await runJob("/v1/forms/fill", w9, { values });
    expect(job.status, job.message).toBe("done");
    expect(job.warnings?.join(" ")).toMatch(/XFA data was removed/);
    const path = await download(job.outputs?.[0]?.url, "filled.pdf");
    const { stdout } = await runTool("qpdf", ["--json", "--json-key=acroform", path]);
    const found = new Map(
      (
        JSON.parse(stdout) as { acroform: { fields: { fullname: string; value: unknown }[] } }
      ).acroform.fields.map((field) => [field.fullname, field.value]),
    );
    expect(found.get(`${page1}.f1_1[0]`)).toBe("u:Jane Q. Public");
    expect(found.get(`${page1}.FederalClassification[0].c1_1[0]`)).toBe("/1");
    expect(found.get(`${page1}.SSN[0].f1_13[0]`)).toBe("u:6789");
  });

  it("refuses options of the wrong shape at once, with 400 invalid_options naming the option", async () => {
    for (const [options, detail] of [
      [{}, /values/],
      [{ values: { a: 5 } }, /values/],
      [{ values: { a: "b" }, flatten: "yes" }, /flatten/],
    ] as const) {
      const created = await client.postFiles("/v1/forms/fill", [{ path: libreOfficeForm }], options);
      expect(created.status, JSON.stringify(options)).toBe(400);
      expect(created.body.error).toBe("invalid_options");
      expect(String(created.body.detail)).toMatch(detail);
    }
  });

  it("fails a job whose values the document refuses with invalid_options naming each field, charging nothing", async () => {
    const used = async () => (await client.get("/v1/account")).body.creditsUsed;
    const before = await used();
    const job = await runJob("/v1/forms/fill", libreOfficeForm, {
      values: { "No Such Field": "x", gdpr: "yes" },
    });
    expect(job).toMatchObject({ status: "failed", error: "invalid_options" });
    expect(job.message).toContain('values["No Such Field"]');
    expect(job.message).toContain('values["gdpr"]: a checkbox takes true or false');
    expect(await used()).toBe(before);
  });

  it("fills then compresses in a pipeline, the value still there", async () => {
    const created = await client.postFiles("/v1/pipeline", [{ path: libreOfficeForm }], undefined, {
      steps: JSON.stringify([
        { operation: "forms-fill", options: { values: { "First Name": "Ada" }, flatten: true } },
        { operation: "compress" },
      ]),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(String(created.body.id), 120_000);
    expect(job.status, job.message).toBe("done");
    const path = await download(job.outputs?.[0]?.url, "pipeline.pdf");
    expect((await runTool("pdftotext", [path, "-"])).stdout).toContain("Ada");
  });
});

describe("split modes", () => {
  it("splits by bookmarks, by count and by size, each part named as the mode says", async () => {
    const byBookmarks = await runJob("/v1/split", geoTopo, { mode: "bookmarks" });
    expect(byBookmarks.status, byBookmarks.message).toBe("done");
    expect(byBookmarks.outputs?.map((output) => output.name)).toContain("5 Krümmung.pdf");
    const byCount = await runJob("/v1/split", geoTopo, { mode: "count", pages: 50 });
    expect(byCount.outputs?.map((output) => output.name)).toEqual([
      "samplefiles_GeoTopo-komprimiert-p1-50.pdf",
      "samplefiles_GeoTopo-komprimiert-p51-100.pdf",
      "samplefiles_GeoTopo-komprimiert-p101-117.pdf",
    ]);
    const bySize = await runJob("/v1/split", geoTopo, { mode: "size", maxBytes: 1_000_000 });
    expect(bySize.status, bySize.message).toBe("done");
    for (const output of bySize.outputs ?? []) expect(output.size).toBeLessThanOrEqual(1_000_000);
  });

  it("refuses a mode without its option, or an option of another mode, naming it", async () => {
    for (const [options, detail] of [
      [{ mode: "count" }, /^pages: required with mode "count"/],
      [{ mode: "size" }, /^maxBytes: required with mode "size"/],
      [
        { mode: "size", maxBytes: 100_000, ranges: "1-2" },
        /^ranges: only applies to mode "pages", not "size"/,
      ],
      [{ level: 2 }, /^level: only applies to mode "bookmarks", not "pages"/],
      [{ mode: "size", maxBytes: 5 }, /maxBytes/],
    ] as const) {
      const created = await client.postFiles("/v1/split", [{ path: geoTopo }], options);
      expect(created.status, JSON.stringify(options)).toBe(400);
      expect(created.body.error).toBe("invalid_options");
      expect(String(created.body.detail)).toMatch(detail);
    }
  });
});

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

/** A Word template of paragraphs, and a table whose one row is a loop when `row` is given. */
async function wordTemplate(name: string, paragraphs: string[], row?: string[]): Promise<string> {
  const children: (Paragraph | Table)[] = paragraphs.map((text) => new Paragraph(text));
  if (row) {
    children.push(
      new Table({
        rows: [
          new TableRow({ children: ["Item", "Qty", "Price"].map(cell) }),
          new TableRow({ children: row.map(cell) }),
        ],
      }),
    );
  }
  const path = join(scratch.path, name);
  await writeFile(path, await Packer.toBuffer(new Document({ sections: [{ children }] })));
  return path;
}

const invoiceRow = ["{#items}{name}", "{qty}", '{price | currency:"EUR"}{/items}'];
const items = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    name: `Widget ${index + 1}`,
    qty: index + 1,
    price: 10.5 * (index + 1),
  }));
// A 1×1 red PNG.
const png =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async function generate(template: string, options: unknown, extra: { path: string; field: string }[] = []) {
  const created = await client.postFiles("/v1/generate", [{ path: template }, ...extra], options);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return client.waitForJob(String(created.body.id), 300_000);
}

async function pdfText(path: string): Promise<string> {
  return (await runTool("pdftotext", ["-layout", path, "-"])).stdout;
}

async function pageCount(path: string): Promise<number> {
  return Number(/Pages:\s+(\d+)/.exec((await runTool("pdfinfo", [path])).stdout)?.[1]);
}

describe("generate from Word templates", () => {
  it("fills an invoice: 100 table rows from a loop, formatters by locale, a condition and a picture", async () => {
    const template = await wordTemplate(
      "invoice.docx",
      [
        "Invoice {number} for {customer.name}",
        'Date: {date | date:"long"}',
        "{#paid}PAID{/paid}{^paid}DUE{/paid}",
        "{%logo}",
      ],
      invoiceRow,
    );
    const data = {
      number: "A-17",
      customer: { name: "Ada Lovelace" },
      date: "2026-11-30",
      paid: false,
      logo: { src: png, width: 36 },
      items: items(100),
    };
    const job = await generate(template, { data, locale: "de-DE" });
    expect(job.status, job.message).toBe("done");
    expect(job.credits).toBe(2);
    expect(job.outputs?.map((output) => output.name)).toEqual(["invoice.pdf"]);
    const pdf = await download(job.outputs?.[0]?.url, "invoice.pdf");
    const text = await pdfText(pdf);
    expect(text).toContain("Invoice A-17 for Ada Lovelace");
    expect(text).toContain("Date: 30. November 2026");
    expect(text).toContain("DUE");
    expect(text).not.toContain("PAID");
    const rows = text.split("\n").filter((line) => /^\s*Widget \d+\s/.test(line));
    expect(rows).toHaveLength(100);
    expect(rows[99]).toMatch(/Widget 100\s+100\s+1\.050,00\s€/);
    expect(text).not.toMatch(/[{}]/);
    const listed = (await runTool("pdfimages", ["-list", pdf])).stdout.split("\n").slice(2);
    const images = listed.map((line) => line.trim().split(/\s+/)).filter((columns) => columns[2] === "image");
    expect(images.map((columns) => columns.slice(3, 5))).toEqual([["1", "1"]]);
  });

  it("makes one document per item named by fileName, or one merged PDF of a 200-item batch", async () => {
    const template = await wordTemplate("letter.docx", ["Dear {name},", "Your number is {id | number}."]);
    const people = Array.from({ length: 200 }, (_, index) => ({
      name: `Person ${index + 1}`,
      id: 1000 * (index + 1),
    }));
    const three = await generate(template, {
      data: people.slice(0, 3),
      fileName: "letter-{name | lower}",
      format: "docx",
    });
    expect(three.status, three.message).toBe("done");
    expect(three.outputs?.map((output) => output.name)).toEqual([
      "letter-person 1.docx",
      "letter-person 2.docx",
      "letter-person 3.docx",
    ]);

    const merged = await generate(template, { data: people, merge: true });
    expect(merged.status, merged.message).toBe("done");
    expect(merged.outputs).toHaveLength(1);
    const pdf = await download(merged.outputs?.[0]?.url, "letters.pdf");
    expect(await pageCount(pdf)).toBe(200);
    const text = await pdfText(pdf);
    for (const person of people) expect(text).toContain(`Dear ${person.name},`);
    expect(text).toContain("Your number is 200,000.");
  }, 600_000);

  it("takes the data as an uploaded data.json, and refuses both or neither with 400", async () => {
    const template = await wordTemplate("hello.docx", ["Hello {name}"]);
    const dataFile = join(scratch.path, "data.json");
    await writeFile(dataFile, JSON.stringify({ name: "from a file" }));
    const job = await generate(template, {}, [{ path: dataFile, field: "data" }]);
    expect(job.status, job.message).toBe("done");
    expect(await pdfText(await download(job.outputs?.[0]?.url, "hello.pdf"))).toContain("Hello from a file");

    const both = await client.postFiles(
      "/v1/generate",
      [{ path: template }, { path: dataFile, field: "data" }],
      { data: { name: "x" } },
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_options");
    expect(String(both.body.message)).toMatch(/not both/);
    const neither = await client.postFiles("/v1/generate", [{ path: template }], {});
    expect(neither.status).toBe(400);
    expect(String(neither.body.message)).toMatch(/needs its data/);
    const tooMany = await client.postFiles("/v1/generate", [{ path: template }], {
      data: Array.from({ length: 501 }, () => ({ name: "x" })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.detail).toBe("data: must hold 1 to 500 objects");
  });

  it("generates a batch, then stamps page numbers on each document, in a pipeline", async () => {
    const template = await wordTemplate("note.docx", ["Note for {name}"]);
    const created = await client.postFiles("/v1/pipeline", [{ path: template }], undefined, {
      steps: JSON.stringify([
        {
          operation: "generate",
          options: { data: [{ name: "Grace" }, { name: "Alan" }], fileName: "note-{name}" },
        },
        { operation: "page-numbers", options: { format: "page {n}" } },
      ]),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await client.waitForJob(String(created.body.id), 300_000);
    expect(job.status, job.message).toBe("done");
    expect(job.outputs?.map((output) => output.name).sort()).toEqual(["note-Alan.pdf", "note-Grace.pdf"]);
    const text = await pdfText(
      await download(job.outputs?.find((output) => output.name === "note-Grace.pdf")?.url, "grace.pdf"),
    );
    expect(text).toContain("Note for Grace");
    expect(text).toContain("page 1");
  });

  it("fails naming each placeholder with no data and where it is, charging nothing, unless missing is empty", async () => {
    const template = await wordTemplate("gaps.docx", ["Name: {name}", "City: {address.city}"]);
    const used = async () => (await client.get("/v1/account")).body.creditsUsed;
    const before = await used();
    const failed = await generate(template, { data: { name: "Ada" } });
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("invalid_options");
    expect(failed.message).toMatch(/\{address\.city\} in the document body, after "Name: \{name\}City:"/);
    expect(failed.message).not.toMatch(/\{name\}: no value/);
    expect(await used()).toBe(before);
    const blank = await generate(template, { data: { name: "Ada" }, missing: "empty" });
    expect(blank.status, blank.message).toBe("done");
    const text = await pdfText(await download(blank.outputs?.[0]?.url, "gaps.pdf"));
    expect(text).toMatch(/Name: Ada\s+City:\s*$/m);
  });

  it("fails malformed syntax and a package that is not one with invalid_input naming the problem", async () => {
    const unclosed = await wordTemplate("unclosed.docx", ["{#items}{name}"]);
    const job = await generate(unclosed, { data: { items: [] } });
    expect(job.status).toBe("failed");
    expect(job.error).toBe("invalid_input");
    expect(job.message).toMatch(/unclosed\.docx has template errors: .*\{?#?items\}? in the document body/);

    const unknownFormatter = await wordTemplate("formatter.docx", ["{total | money}"]);
    const refused = await generate(unknownFormatter, { data: { total: 1 } });
    expect(refused.error).toBe("invalid_input");
    expect(refused.message).toMatch(/no formatter "money"; there are date, number, currency/);

    const notZip = join(scratch.path, "broken.docx");
    await writeFile(notZip, "this is not a zip archive");
    const broken = await generate(notZip, { data: {} });
    expect(broken.error).toBe("invalid_input");
    expect(broken.message).toMatch(/broken\.docx is not a valid \.docx package/);

    const wrongFormat = await generate(unknownFormatter, { data: { total: 1 }, format: "xlsx" });
    expect(wrongFormat.error).toBe("invalid_options");
    expect(wrongFormat.message).toMatch(/docx template, so its documents come as pdf or docx/);
  });

  it("runs no code and reaches no prototype from a hostile template", async () => {
    const hostile = [
      '{constructor.constructor("return process")()}',
      "{__proto__.polluted}",
      "{items.constructor.name}",
      "{this.toString}",
    ];
    for (const [index, text] of hostile.entries()) {
      const template = await wordTemplate(`hostile-${index}.docx`, [text]);
      const job = await generate(template, { data: { items: [1] } });
      expect(job.status, text).toBe("failed");
      expect(job.error, text).toBe(index === 3 ? "invalid_options" : "invalid_input");
    }
    // Inherited names are not data: {toString} of an object without one is missing, not a function's text.
    const inherited = await wordTemplate("inherited.docx", ["[{toString}][{hasOwnProperty}]"]);
    const job = await generate(inherited, { data: {}, missing: "empty" });
    expect(job.status, job.message).toBe("done");
    expect(await pdfText(await download(job.outputs?.[0]?.url, "inherited.pdf"))).toMatch(/\[\]\[\]/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("fills an .odt template, as PDF and as ODT", async () => {
    const docx = await wordTemplate("minutes.docx", [
      'Minutes of {date | date:"full"}',
      "{#present}- {.}\n{/present}",
    ]);
    await runTool("soffice", ["--headless", "--convert-to", "odt", "--outdir", scratch.path, docx]);
    const odt = join(scratch.path, "minutes.odt");
    const data = { date: "2026-11-30", present: ["Grace", "Alan"] };
    const pdfJob = await generate(odt, { data });
    expect(pdfJob.status, pdfJob.message).toBe("done");
    const text = await pdfText(await download(pdfJob.outputs?.[0]?.url, "minutes.pdf"));
    expect(text).toContain("Minutes of Monday, November 30, 2026");
    expect(text).toMatch(/- Grace[\s\S]*- Alan/);
    const odtJob = await generate(odt, { data, format: "odt" });
    expect(odtJob.status, odtJob.message).toBe("done");
    expect(odtJob.outputs?.[0]?.name).toBe("minutes.odt");
    const out = await download(odtJob.outputs?.[0]?.url, "out.odt");
    expect((await readFile(out)).subarray(30, 38).toString()).toBe("mimetype");
  }, 300_000);
});

describe("generate from PowerPoint and Excel templates", () => {
  it("repeats a slide per item of a loop, the other slides once", async () => {
    const deck = new Presentation();
    deck.addSlide().addText("Team of {team}", { x: 1, y: 1, w: 8, h: 1 });
    deck.addSlide().addText("{:members}{name}, {role}", { x: 1, y: 1, w: 8, h: 1 });
    deck.addSlide().addText("The end", { x: 1, y: 1, w: 8, h: 1 });
    const path = join(scratch.path, "team.pptx");
    await writeFile(path, (await deck.write({ outputType: "nodebuffer" })) as Buffer);
    const members = [
      { name: "Grace", role: "admiral" },
      { name: "Alan", role: "logician" },
      { name: "Ada", role: "analyst" },
    ];
    const job = await generate(path, { data: { team: "Pioneers", members } });
    expect(job.status, job.message).toBe("done");
    const pdf = await download(job.outputs?.[0]?.url, "team.pdf");
    expect(await pageCount(pdf)).toBe(5);
    const pages = (await pdfText(pdf)).split("\f");
    expect(pages[0]).toContain("Team of Pioneers");
    expect(pages.slice(1, 4).map((page) => page.trim())).toEqual([
      "Grace, admiral",
      "Alan, logician",
      "Ada, analyst",
    ]);
    expect(pages[4]).toContain("The end");
  });

  it("repeats a spreadsheet row per item, numbers kept numbers and the total's range grown", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Invoice");
    sheet.addRow(["Invoice {number}"]);
    sheet.addRow(["Item", "Qty", "Amount"]);
    sheet.addRow(["{#lines}{item}", "{qty}", "{amount}{/lines}"]);
    sheet.addRow(["Total", "", { formula: "SUM(C3:C3)" }]);
    const path = join(scratch.path, "sheet.xlsx");
    await workbook.xlsx.writeFile(path);
    const lines = [
      { item: "Tea", qty: 2, amount: 7.5 },
      { item: "Cake", qty: 1, amount: 4.25 },
      { item: "Jam", qty: 3, amount: 9 },
    ];
    const job = await generate(path, { data: { number: "X-9", lines } });
    expect(job.status, job.message).toBe("done");
    const text = await pdfText(await download(job.outputs?.[0]?.url, "sheet.pdf"));
    expect(text).toContain("Invoice X-9");
    expect(text).toMatch(/Tea\s+2\s+7\.5/);
    expect(text).toMatch(/Jam\s+3\s+9/);
    expect(text).toMatch(/Total\s+20\.75/);
  });
});
