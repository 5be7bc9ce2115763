import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FormReport } from "@octavo/contracts";
import { JobFailure } from "@octavo/engines";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { fillForm } from "../src/forms/fill-form.js";
import { readForm } from "../src/forms/read-form.js";
import { context, corpus, failureOf, pdftotext, qpdfCheck, renderPage, tool } from "./helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "forms");
/** IRS Form W-9 (Rev. October 2018) as the IRS published it: AcroForm fields beside static XFA. */
const w9 = { path: join(fixtures, "irs-fw9-2018.pdf"), name: "fw9.pdf" };
const page1 = "topmostSubform[0].Page1[0]";
const validateReport = new Ajv({ strict: false, allErrors: true }).compile(FormReport);

async function read(input: { path: string; name: string }) {
  const result = await readForm(input, {}, await context());
  expect(validateReport(result.report), JSON.stringify(validateReport.errors)).toBe(true);
  expect(JSON.parse(await readFile(result.outputs[0]?.path ?? "", "utf8"))).toEqual(result.report);
  return result;
}

async function fill(input: { path: string; name: string }, values: Record<string, unknown>, extra = {}) {
  const result = await fillForm(
    input,
    { values: values as Record<string, string>, flatten: false, force: false, ...extra },
    await context(),
  );
  const path = result.outputs[0]?.path ?? "";
  expect((await qpdfCheck(path)).code).toBe(0);
  return { ...result, path };
}

/** qpdf's reading of the form (a reader we did not write): field name → value as qpdf prints it. */
async function qpdfValues(path: string): Promise<Map<string, unknown>> {
  const { stdout } = await tool("qpdf", ["--json", "--json-key=acroform", path]);
  const fields = (JSON.parse(stdout) as { acroform: { fields: { fullname: string; value: unknown }[] } })
    .acroform.fields;
  return new Map(fields.map((field) => [field.fullname, field.value]));
}

/** Dark pixels inside a widget's rectangle, drawn by poppler at 150 dpi. */
async function inkIn(path: string, page: number, rect: number[]): Promise<number> {
  const drawing = await renderPage(path, page, 150);
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = rect.map((value) => value * drawing.scale);
  const pageHeight = drawing.height;
  let dark = 0;
  for (let y = Math.ceil(pageHeight - y1) + 2; y < Math.floor(pageHeight - y0) - 2; y += 1) {
    for (let x = Math.ceil(x0) + 2; x < Math.floor(x1) - 2; x += 1) {
      const at = (y * drawing.width + x) * 3;
      if (
        (drawing.pixels[at] ?? 255) + (drawing.pixels[at + 1] ?? 255) + (drawing.pixels[at + 2] ?? 255) <
        300
      )
        dark += 1;
    }
  }
  return dark;
}

describe("forms/read", () => {
  it("reports the W-9's fields: names, types, comb boxes with their maximum lengths, widgets, and its XFA", async () => {
    const { report, warnings } = await read(w9);
    expect(report.form).toBe("xfa-static");
    expect(report.fillable).toBe(true);
    expect(report.fields).toHaveLength(22);
    const byName = new Map(report.fields.map((field) => [field.name, field]));
    expect(byName.get(`${page1}.f1_1[0]`)).toEqual({
      name: `${page1}.f1_1[0]`,
      type: "text",
      value: "",
      flags: { required: false, readOnly: false, multiline: false, comb: false, password: false },
      widgets: [{ page: 1, rect: [59.6, 683.97, 576, 697.97] }],
    });
    expect(byName.get(`${page1}.SSN[0].f1_11[0]`)?.flags).toMatchObject({ comb: true, maxLength: 3 });
    expect(byName.get(`${page1}.f1_9[0]`)?.flags.multiline).toBe(true);
    expect(report.fields.filter((field) => field.type === "checkbox")).toHaveLength(7);
    expect(warnings).toEqual([]);
  });

  it("reports a choice's options with export values, a radio group's values, and current values", async () => {
    const { report } = await read(corpus("general/samplefiles_libreoffice-form.pdf"));
    expect(report.form).toBe("acroform");
    const byName = new Map(report.fields.map((field) => [field.name, field]));
    expect(byName.get("First Name")?.value).toBe("Alice");
    const nationality = byName.get("Nationality");
    expect(nationality?.type).toBe("choice");
    expect(nationality?.flags.combo).toBe(true);
    expect(nationality?.options?.map((option) => option.value)).toContain("French");
    expect(byName.get("female")).toMatchObject({
      type: "radio",
      value: null,
      options: [{ value: "1" }, { value: "2" }],
    });
    expect(byName.get("female")?.widgets).toHaveLength(2);
  });

  it("says a dynamic XFA form cannot be filled, and a PDF without a form has none", async () => {
    const dynamic = await read(corpus("general/ocrmypdf_livecycle.pdf"));
    expect(dynamic.report).toEqual({ form: "xfa-dynamic", fillable: false, fields: [] });
    expect(dynamic.warnings.join(" ")).toMatch(/dynamic XFA form.*cannot fill/);
    const plain = await read(corpus("general/samplefiles_pdflatex-outline.pdf"));
    expect(plain.report).toEqual({ form: "none", fillable: false, fields: [] });
  });
});

describe("forms/fill", () => {
  const values = {
    [`${page1}.f1_1[0]`]: "Jane Q. Public",
    [`${page1}.f1_2[0]`]: "Public Widgets LLC",
    [`${page1}.FederalClassification[0].c1_1[0]`]: true,
    [`${page1}.Address[0].f1_7[0]`]: "1600 Pennsylvania Avenue NW",
    [`${page1}.Address[0].f1_8[0]`]: "Washington, DC 20500",
    [`${page1}.f1_9[0]`]: "Internal Revenue Service, 1111 Constitution Avenue NW, Washington DC",
    [`${page1}.SSN[0].f1_11[0]`]: "123",
    [`${page1}.SSN[0].f1_12[0]`]: "45",
    [`${page1}.SSN[0].f1_13[0]`]: "6789",
  };

  it("fills the W-9: qpdf reads back every value and poppler draws each one in its field at 150 dpi", async () => {
    const { path, warnings } = await fill(w9, values);
    const found = await qpdfValues(path);
    for (const [name, value] of Object.entries(values)) {
      expect(found.get(name), name).toBe(typeof value === "boolean" ? "/1" : `u:${value}`);
    }
    const { report } = await read({ path, name: "filled.pdf" });
    // The XFA data, which would show XFA viewers the old values, is gone; the form is an AcroForm now.
    expect(report.form).toBe("acroform");
    expect(warnings.join(" ")).toMatch(/XFA data was removed/);
    const blank = new Map((await read(w9)).report.fields.map((field) => [field.name, field]));
    for (const name of Object.keys(values)) {
      const widget = blank.get(name)?.widgets[0];
      if (widget === undefined) throw new Error(`no widget for ${name}`);
      const before = await inkIn(w9.path, widget.page, widget.rect);
      expect(await inkIn(path, widget.page, widget.rect), name).toBeGreaterThan(before + 10);
    }
    // Every viewer is given the appearances: none is asked to draw them.
    const { stdout } = await tool("qpdf", ["--show-object=trailer", "--json", path]);
    expect(stdout).not.toContain("NeedAppearances");
  });

  it("flattened, pdftotext finds every text value on the page and no field is left", async () => {
    const { path } = await fill(w9, values, { flatten: true });
    const text = (await pdftotext(path, { first: 1, last: 1 })).replace(/\s+/g, " ");
    for (const [name, value] of Object.entries(values)) {
      if (typeof value === "string" && !name.includes(".SSN[0].")) expect(text).toContain(value);
    }
    // A comb field's characters each sit in their box: pdftotext spaces them out.
    expect(text).toMatch(/6\s*7\s*8\s*9/);
    expect((await read({ path, name: "flat.pdf" })).report.form).toBe("none");
  });

  it("draws text its font lacks (Chinese, Greek, Cyrillic) with embedded fonts that have the glyphs", async () => {
    const name = "山田太郎 Ελένη Ивановна";
    const { path } = await fill(w9, { [`${page1}.f1_1[0]`]: name }, { flatten: true });
    expect((await pdftotext(path, { first: 1, last: 1 })).replace(/\s+/g, " ")).toContain(name);
    const fonts = (await tool("pdffonts", [path])).stdout.split("\n").slice(2);
    const added = fonts.filter((line) => /Identity-H/.test(line) && !/UniversalStd/.test(line));
    expect(added.length).toBeGreaterThan(0);
    // Every font that draws the new text is embedded: column "emb" is yes.
    for (const line of added) expect(line).toMatch(/\byes\s+yes\s+yes\b/);
  });

  it("fills a radio group, a drop-down and a checkbox by their export values", async () => {
    const form = corpus("general/samplefiles_libreoffice-form.pdf");
    const { path } = await fill(form, {
      female: "2",
      Nationality: "French",
      gdpr: true,
      "First Name": "Ada",
    });
    const { report } = await read({ path, name: "filled.pdf" });
    const byName = new Map(report.fields.map((field) => [field.name, field.value]));
    expect(
      Object.fromEntries(
        ["female", "Nationality", "gdpr", "First Name"].map((key) => [key, byName.get(key)]),
      ),
    ).toEqual({ female: "2", Nationality: "French", gdpr: true, "First Name": "Ada" });
    const found = await qpdfValues(path);
    expect(found.get("female")).toBe("/2");
    expect(found.get("Nationality")).toBe("u:French");
  });

  it("fills a multi-select list box with a list and a read-only field only with force", async () => {
    const path = await listBoxForm();
    const input = { path, name: "list.pdf" };
    const readOnly = await failureOf(fill(input, { "Last Name": "Lovelace" }));
    expect(readOnly.code).toBe("invalid_options");
    expect(readOnly.message).toMatch(/values\["Last Name"\]: the field is read-only; set force/);
    const { path: filled } = await fill(
      input,
      { Nationality: ["French", "German"], "Last Name": "Lovelace" },
      { force: true },
    );
    const byName = new Map(
      (await read({ path: filled, name: "f.pdf" })).report.fields.map((field) => [field.name, field]),
    );
    expect(byName.get("Nationality")?.value).toEqual(["French", "German"]);
    expect(byName.get("Last Name")?.value).toBe("Lovelace");
  });

  it("refuses, naming each field and why: unknown, wrong type, not an option, too long, a list for one value", async () => {
    const failure = await failureOf(
      fill(corpus("general/samplefiles_libreoffice-form.pdf"), {
        "No Such Field": "x",
        gdpr: "yes",
        Nationality: "Martian",
        female: "3",
        "First Name": ["a", "b"],
      }),
    );
    expect(failure.code).toBe("invalid_options");
    expect(failure.message).toContain(
      'values["No Such Field"]: samplefiles_libreoffice-form.pdf has no field of this name',
    );
    expect(failure.message).toContain('values["gdpr"]: a checkbox takes true or false, not the string "yes"');
    expect(failure.message).toContain('values["Nationality"]: "Martian" is not among the field\'s options');
    expect(failure.message).toContain('values["female"]: "3" is not one of the group\'s values ("1", "2")');
    expect(failure.message).toContain('values["First Name"]: a text field takes a string, not a list');
    const tooLong = await failureOf(fill(w9, { [`${page1}.SSN[0].f1_11[0]`]: "1234" }));
    expect(tooLong.message).toContain("the text has 4 characters; the field takes at most 3");
    const short = await failureOf(fill(w9, { "f1_1[0]": "x" }));
    expect(short.message).toContain(`Did you mean "${page1}.f1_1[0]"?`);
  });

  it("refuses a dynamic XFA form and a PDF without fields, saying why", async () => {
    const dynamic = await failureOf(fill(corpus("general/ocrmypdf_livecycle.pdf"), { a: "b" }));
    expect([dynamic.code, dynamic.message]).toEqual([
      "conversion_failed",
      expect.stringMatching(/dynamic XFA form/),
    ]);
    const none = await failureOf(fill(corpus("general/samplefiles_pdflatex-outline.pdf"), { a: "b" }));
    expect([none.code, none.message]).toEqual([
      "invalid_options",
      expect.stringMatching(/has no form fields/),
    ]);
  });

  it("draws a value the file left to viewers (NeedAppearances) when it fills another field", async () => {
    // form-filled.pdf: "Birthday" holds a value with no appearance; NeedAppearances is true.
    const input = { path: join(fixtures, "..", "form-filled.pdf"), name: "form.pdf" };
    const blank = new Map((await read(input)).report.fields.map((field) => [field.name, field]));
    const birthday = blank.get("Birthday")?.widgets[0];
    if (birthday === undefined) throw new Error("no Birthday widget");
    const { path } = await fill(input, { "Last Name": "Lovelace" }, { flatten: true });
    expect(await pdftotext(path)).toContain("1815-12-10");
  });
});

describe("forms/read on damaged and encrypted files", () => {
  it("gives every file of the corpus's broken and encrypted sets a report or the right refusal", async () => {
    const outcomes = new Map<string, string>();
    for (const set of ["broken", "encrypted"]) {
      for (const file of await readdir(corpusPath(set))) {
        const outcome = await readForm(corpus(`${set}/${file}`), {}, await context()).then(
          (result) => `report:${result.report.form}`,
          (error: unknown) =>
            error instanceof JobFailure
              ? // A rights-management wrapper is refused as every operation refuses it, saying why.
                /is a protected wrapper/.test(error.message)
                ? "protected wrapper"
                : error.code
              : `crash:${String(error)}`,
        );
        outcomes.set(`${set}/${file}`, outcome);
      }
    }
    const wrong = [...outcomes].filter(
      ([file, outcome]) =>
        !(file.startsWith("encrypted/")
          ? outcome === "password_required" || outcome === "protected wrapper"
          : outcome.startsWith("report:") || outcome === "invalid_input"),
    );
    expect(wrong).toEqual([]);
    expect(outcomes.size).toBeGreaterThan(50);
  });
});

describe("forms/fill on every form of the corpus", () => {
  const forms = [
    "general/samplefiles_pdflatex-forms.pdf",
    "general/samplefiles_libreoffice-form.pdf",
    "general/pdfjs_prefilled_f1040.pdf",
    "general/pikepdf_form_210966.pdf",
    "general/tika_testPDF_XFA_govdocs1_258578.pdf",
  ];

  it.each(forms)(
    "%s: every fillable field filled; qpdf reads each value back, pdftotext finds the text flattened",
    async (file) => {
      const input = corpus(file);
      const { report } = await read(input);
      const values: Record<string, string | boolean> = {};
      report.fields.forEach((field, index) => {
        if (field.flags.readOnly) return;
        if (field.type === "text") {
          const room = field.flags.maxLength ?? 12;
          values[field.name] = room >= 6 ? `Val${index}`.slice(0, room) : "7".repeat(room);
        }
        if (field.type === "checkbox") values[field.name] = true;
        const option = field.options?.at(-1)?.value;
        if ((field.type === "radio" || field.type === "choice") && option !== undefined)
          values[field.name] = option;
      });
      expect(Object.keys(values).length).toBeGreaterThan(0);
      const { path } = await fill(input, values);
      const found = await qpdfValues(path);
      const byName = new Map(report.fields.map((field) => [field.name, field]));
      for (const [name, value] of Object.entries(values)) {
        // qpdf names a button's state; a radio group with /Opt has states "0", "1", … for its export values.
        const type = byName.get(name)?.type;
        if (type === "checkbox" || type === "radio") expect(found.get(name), name).toMatch(/^\/(?!Off$)/);
        else expect(found.get(name), name).toBe(`u:${value}`);
      }
      const readBack = new Map(
        (await read({ path, name: "filled.pdf" })).report.fields.map((field) => [field.name, field.value]),
      );
      for (const [name, value] of Object.entries(values)) expect(readBack.get(name), name).toEqual(value);
      const flat = await fill(input, values, { flatten: true });
      const text = (await pdftotext(flat.path)).replace(/\s+/g, " ");
      for (const [name, value] of Object.entries(values)) {
        const field = byName.get(name);
        if (
          field?.type === "text" &&
          !field.flags.comb &&
          typeof value === "string" &&
          value.startsWith("Val")
        )
          expect(text, name).toContain(value);
      }
    },
  );
});

/** LibreOffice's form with Nationality made a multi-select list box and Last Name read-only, through MuPDF. */
async function listBoxForm(): Promise<string> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(await readFile(corpus("general/samplefiles_libreoffice-form.pdf").path));
  for (const widget of doc.loadPage(0).getWidgets()) {
    const object = widget.getObject();
    if (widget.getName() === "Nationality") object.put("Ff", 1 << 21);
    if (widget.getName() === "Last Name") object.put("Ff", 1);
  }
  const path = join((await context()).workDir, "list.pdf");
  await writeFile(path, doc.saveToBuffer("").asUint8Array());
  doc.destroy();
  return path;
}
