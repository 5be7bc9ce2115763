import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type OperationId,
  type OptionsOf,
  operationIds,
  validateOptions,
  validatePipelineSteps,
} from "../src/index.js";

function detailOf(id: OperationId, raw: unknown): string {
  const result = validateOptions(id, raw);
  if (result.ok) throw new Error(`expected ${id} to refuse ${JSON.stringify(raw)}`);
  return result.detail;
}

function acceptedValue<Id extends OperationId>(id: Id, raw: unknown): OptionsOf<Id> {
  const result = validateOptions(id, raw);
  if (!result.ok) throw new Error(`expected ${id} to accept ${JSON.stringify(raw)}: ${result.detail}`);
  return result.value;
}

const languageList =
  "eng, spa, por, fra, deu, ita, nld, ind, swa, hin, ara, rus, tur, vie, chi_sim, jpn, kor";

describe("defaults", () => {
  it.each([
    ["merge", {}],
    ["split", {}],
    ["rotate", { angle: 90 }],
    ["compress", { level: "recommended", grayscale: false }],
    ["repair", {}],
    ["ocr", { languages: ["eng"], deskew: true, force: false }],
    ["word-to-pdf", {}],
    ["powerpoint-to-pdf", {}],
    ["excel-to-pdf", {}],
    ["html-to-pdf", { format: "A4", landscape: false, margin: "small", background: true, media: "screen" }],
    ["pdf-to-word", {}],
    ["pdf-to-powerpoint", {}],
    ["pdf-to-excel", { mode: "tables" }],
    ["pdf-to-pdfa", { level: "2" }],
    ["unlock", { password: "" }],
  ] as const)("%s fills in %j", (id, expected) => {
    expect(acceptedValue(id, {})).toEqual(expected);
    expect(acceptedValue(id, undefined)).toEqual(expected);
  });

  it("protect fills in the permissions and leaves ownerPassword to the engine", () => {
    expect(acceptedValue("protect", { userPassword: "s3cret" })).toEqual({
      userPassword: "s3cret",
      allowPrinting: true,
      allowCopying: false,
      allowEditing: false,
    });
  });

  it("keeps values that were given", () => {
    const value = acceptedValue("html-to-pdf", {
      url: "https://example.com/a?b=1",
      landscape: true,
      media: "print",
    });
    expect(value).toMatchObject({
      url: "https://example.com/a?b=1",
      landscape: true,
      media: "print",
      format: "A4",
    });
    expect(acceptedValue("compress", { targetKB: 20, level: "extreme" })).toEqual({
      targetKB: 20,
      level: "extreme",
      grayscale: false,
    });
    expect(acceptedValue("ocr", { languages: ["chi_sim", "jpn", "kor"] }).languages).toEqual([
      "chi_sim",
      "jpn",
      "kor",
    ]);
  });

  it("works on a copy and leaves the caller's object alone", () => {
    const raw = { languages: ["deu"] };
    const value = acceptedValue("ocr", raw);
    expect(raw).toEqual({ languages: ["deu"] });
    value.languages.push("fra");
    expect(raw.languages).toEqual(["deu"]);
  });
});

describe("bounds and enums", () => {
  it.each([
    ["rotate", { angle: 45 }, "angle: must be one of 90, 180, 270"],
    ["rotate", { angle: "90" }, "angle: must be one of 90, 180, 270"],
    ["compress", { level: "max" }, "level: must be one of low, recommended, extreme"],
    ["compress", { targetKB: 19 }, "targetKB: must be an integer from 20 to 100000"],
    ["compress", { targetKB: 100_001 }, "targetKB: must be an integer from 20 to 100000"],
    ["compress", { targetKB: 50.5 }, "targetKB: must be an integer from 20 to 100000"],
    ["compress", { grayscale: "yes" }, "grayscale: must be true or false"],
    ["ocr", { languages: [] }, `languages: must hold 1 to 3 of ${languageList} (each at most once)`],
    ["ocr", { languages: ["eng", "spa", "por", "fra"] }, `languages: must hold 1 to 3 of ${languageList}`],
    ["ocr", { languages: ["eng", "klingon"] }, `languages: must hold 1 to 3 of ${languageList}`],
    ["ocr", { languages: ["eng", "eng"] }, `languages: must hold 1 to 3 of ${languageList}`],
    ["ocr", { languages: "eng" }, `languages: must hold 1 to 3 of ${languageList}`],
    ["ocr", { deskew: 1 }, "deskew: must be true or false"],
    ["ocr", { force: null }, "force: must be true or false"],
    ["html-to-pdf", { url: "file:///etc/passwd" }, "url: must be an http or https URL"],
    ["html-to-pdf", { url: "not a url" }, "url: must be an http or https URL"],
    ["html-to-pdf", { format: "A3" }, "format: must be one of A4, Letter, Legal"],
    ["html-to-pdf", { landscape: "true" }, "landscape: must be true or false"],
    ["html-to-pdf", { margin: "large" }, "margin: must be one of none, small, normal"],
    ["html-to-pdf", { background: 0 }, "background: must be true or false"],
    ["html-to-pdf", { media: "tv" }, "media: must be one of print, screen"],
    ["pdf-to-excel", { mode: "sheets" }, "mode: must be one of tables, pages"],
    ["pdf-to-pdfa", { level: "4" }, "level: must be one of 1, 2, 3"],
    ["pdf-to-pdfa", { level: 2.5 }, "level: must be one of 1, 2, 3"],
    ["protect", {}, "userPassword: is required"],
    ["protect", { userPassword: "" }, "userPassword: must be a string of 1 to 127 characters"],
    ["protect", { userPassword: "x".repeat(128) }, "userPassword: must be a string of 1 to 127 characters"],
    [
      "protect",
      { userPassword: "a", ownerPassword: "" },
      "ownerPassword: must be a string of 1 to 127 characters",
    ],
    ["protect", { userPassword: "a", allowPrinting: "no" }, "allowPrinting: must be true or false"],
    ["unlock", { password: 1234 }, "password: must be a string of at most 1024 characters"],
    ["unlock", { password: "x".repeat(1025) }, "password: must be a string of at most 1024 characters"],
  ] as const)("%s %j → %s", (id, raw, expected) => {
    expect(detailOf(id, raw)).toContain(expected);
  });

  it("accepts the edges of every bound", () => {
    expect(acceptedValue("compress", { targetKB: 100_000 }).targetKB).toBe(100_000);
    expect(acceptedValue("protect", { userPassword: "x".repeat(127) }).userPassword).toHaveLength(127);
    expect(acceptedValue("unlock", { password: "x".repeat(1024) }).password).toHaveLength(1024);
    for (const angle of [90, 180, 270] as const) expect(acceptedValue("rotate", { angle }).angle).toBe(angle);
  });

  it("normalises integer PDF/A levels to strings", () => {
    expect(acceptedValue("pdf-to-pdfa", { level: 1 })).toEqual({ level: "1" });
    expect(acceptedValue("pdf-to-pdfa", { level: 3 })).toEqual({ level: "3" });
    expect(acceptedValue("pdf-to-pdfa", { level: "3" })).toEqual({ level: "3" });
  });
});

describe("extra properties and wrong shapes", () => {
  it("names an unknown option and lists the allowed ones", () => {
    expect(detailOf("rotate", { colour: "red" })).toBe(
      "colour: is not an option of rotate (allowed: angle, pages)",
    );
    expect(detailOf("protect", { userPassword: "a", password: "b" })).toBe(
      "password: is not an option of protect (allowed: userPassword, ownerPassword, allowPrinting, allowCopying, allowEditing)",
    );
  });

  it.each(operationIds.filter((id) => ["merge", "repair", "word-to-pdf", "pdf-to-word"].includes(id)))(
    "%s takes no options",
    (id) => {
      expect(detailOf(id, { quality: 1 })).toBe(`quality: is not an option; ${id} takes no options`);
    },
  );

  it.each([[[]], [[{ angle: 90 }]], ["{}"], [null], [42], [true], [new Date(0)]])(
    "refuses %j as options",
    (raw) => {
      expect(detailOf("rotate", raw)).toBe("options: must be a JSON object");
    },
  );
});

describe("page lists", () => {
  it.each(["1", "1-3", "1-3, 5,7-9", " 2 , 4-4 ", "10-200", "07"])("split accepts %j", (ranges) => {
    expect(acceptedValue("split", { ranges })).toEqual({ ranges });
    expect(acceptedValue("rotate", { pages: ranges })).toEqual({ angle: 90, pages: ranges });
  });

  it.each([
    ["5-3", 'ranges: "5-3" goes backwards; write it as 3-5'],
    ["1-2, 9-4", 'ranges: "9-4" goes backwards; write it as 4-9'],
    ["0", 'ranges: "0" names page 0; pages start at 1'],
    ["0-4", 'ranges: "0-4" names page 0; pages start at 1'],
    ["", 'ranges: "" is not a page or range'],
    ["1,,2", 'ranges: "" is not a page or range'],
    ["a-b", 'ranges: "a-b" is not a page or range'],
    ["1 - 3", 'ranges: "1 - 3" is not a page or range'],
    ["-3", 'ranges: "-3" is not a page or range'],
    ["3-", 'ranges: "3-" is not a page or range'],
    ["1;2", 'ranges: "1;2" is not a page or range'],
  ])("split refuses %j", (ranges, expected) => {
    expect(detailOf("split", { ranges })).toContain(expected);
  });

  it("says the same for rotate.pages", () => {
    expect(detailOf("rotate", { pages: "5-3" })).toBe('pages: "5-3" goes backwards; write it as 3-5');
    expect(detailOf("rotate", { pages: 5 })).toBe("pages: must list pages and ranges such as 1-3, 5, 7-9");
  });
});

describe("redact: the rules beyond its schema", () => {
  it("fills in the defaults and keeps the rules given", () => {
    expect(acceptedValue("redact", { text: ["Jane Doe"] })).toEqual({
      text: ["Jane Doe"],
      caseSensitive: false,
      wholeWords: false,
      ocr: false,
      languages: ["eng"],
      sanitize: true,
      fill: "#000000",
    });
    const areas = [{ page: 3, rect: [0, 0, 612, 20] }];
    expect(acceptedValue("redact", { areas, presets: [] })).toMatchObject({ areas, presets: [] });
    expect(acceptedValue("redact", { patterns: ["(?i)ref-\\d{4}", "\\bA+\\b"] }).patterns).toHaveLength(2);
  });

  it.each([{}, { text: [], patterns: [], presets: [], areas: [] }, { caseSensitive: true, label: "X" }])(
    "refuses %j, which asks for nothing, saying what to give",
    (raw) => {
      expect(detailOf("redact", raw)).toBe(
        "options: nothing to redact; give at least one of text (strings to find), patterns (RE2 regular " +
          "expressions), presets (email, phone, iban, card, ssn, ipv4, ipv6) or areas " +
          '([{"page": 1, "rect": [x, y, width, height]}])',
      );
    },
  );

  it("refuses a pattern RE2 cannot read, naming it, after the schema's own checks", () => {
    expect(detailOf("redact", { patterns: ["ok", "(?=ahead)"] })).toMatch(
      /^patterns\[1\]: is not a regular expression RE2 can read \(.+\); RE2 has no look-around or back-references$/,
    );
    expect(detailOf("redact", { patterns: ["(a)\\1"] })).toMatch(
      /^patterns\[0\]: is not a regular expression/,
    );
    expect(detailOf("redact", { patterns: ["x".repeat(501)] })).toBe(
      "patterns: must hold at most 20 strings of 1 to 500 characters",
    );
  });

  it.each([
    [
      { areas: [{ page: 1, rect: [10, 10, 100, 0] }] },
      "areas[0].rect: width and height must be greater than 0",
    ],
    [{ areas: [{ page: 1, rect: [10, 10, 100] }] }, "areas[0].rect: must hold 4 numbers from 0 to 14400"],
    [{ areas: [{ page: 1, rect: [10, -1, 100, 5] }] }, "areas[0].rect[1]: must be a number from 0 to 14400"],
    [{ areas: [{ page: 1.5, rect: [1, 1, 1, 1] }] }, "areas[0].page: must be an integer from 1 to 20000"],
    [{ areas: [{ rect: [1, 1, 1, 1] }] }, "areas[0].page: is required"],
    [
      { areas: [{ page: 1, rect: [1, 1, 1, 1], colour: "red" }] },
      "areas[0].colour: is not allowed (allowed: page, rect)",
    ],
    [{ areas: ["1,1,1,1"] }, "areas[0]: must be an object with page, rect"],
    [{ areas: {} }, "areas: must hold at most 500 objects with page, rect"],
    [
      { text: [""] },
      "text: must hold at most 100 strings of 1 to 200 characters, each with a character other than white space",
    ],
    [
      { text: ["a"], presets: ["email", "email"] },
      "presets: must hold at most 7 of email, phone, iban, card, ssn, ipv4, ipv6 (each at most once)",
    ],
    [{ text: ["a"], fill: "black" }, 'fill: must be a string a colour written "#RRGGBB", e.g. "#808080"'],
    [{ text: ["a"], pages: "3-1" }, 'pages: "3-1" goes backwards; write it as 1-3'],
  ])("%j → %s", (raw, expected) => {
    expect(detailOf("redact", raw)).toBe(expected);
  });

  it("gives a redact step of a pipeline the same detail, under the step", () => {
    const steps = [{ operation: "ocr" }, { operation: "redact", options: { patterns: ["(?<=x)"] } }];
    const result = validatePipelineSteps(steps, { inputCount: 1 });
    expect(result.ok ? "accepted" : result.detail).toMatch(
      /^steps\[1\]\.options\.patterns\[0\]: is not a regular expression/,
    );
  });
});

describe("split's modes and fill form's values", () => {
  it("accepts each split mode with its option, and the spec's split as it was", () => {
    expect(acceptedValue("split", { mode: "count", pages: 10 })).toEqual({ mode: "count", pages: 10 });
    expect(acceptedValue("split", { mode: "size", maxBytes: 5_000_000 })).toEqual({
      mode: "size",
      maxBytes: 5_000_000,
    });
    expect(acceptedValue("split", { mode: "bookmarks", level: 2 })).toEqual({ mode: "bookmarks", level: 2 });
    expect(acceptedValue("split", { mode: "pages", ranges: "1-2" })).toEqual({
      mode: "pages",
      ranges: "1-2",
    });
  });

  it.each([
    [{ mode: "count" }, 'pages: required with mode "count".'],
    [{ mode: "size" }, 'maxBytes: required with mode "size".'],
    [{ mode: "bookmarks", pages: 3 }, 'pages: only applies to mode "count", not "bookmarks".'],
    [{ ranges: "1", maxBytes: 20_000 }, 'maxBytes: only applies to mode "size", not "pages".'],
  ])("split %j → %s", (raw, expected) => {
    expect(detailOf("split", raw)).toBe(expected);
  });

  it("takes strings, booleans and lists of strings as form values, and nothing else", () => {
    const values = { name: "Ada", agree: true, colours: ["red", "blue"] };
    expect(acceptedValue("forms-fill", { values })).toEqual({ values, flatten: false, force: false });
    expect(detailOf("forms-fill", {})).toMatch(/^values: is required/);
    expect(detailOf("forms-fill", { values: { age: 36 } })).toMatch(/^values\.age: /);
    expect(detailOf("forms-fill", { values: { list: [1] } })).toMatch(/^values\.list/);
  });

  it("takes Generate's data as an object or up to 500 objects, with its defaults and its rules", () => {
    expect(acceptedValue("generate", { data: { a: 1 } })).toEqual({
      data: { a: 1 },
      format: "pdf",
      merge: false,
      missing: "error",
      locale: "en-US",
      timeZone: "UTC",
    });
    expect(detailOf("generate", { data: "text" })).toMatch(/^data: must be an object/);
    expect(detailOf("generate", { data: Array.from({ length: 501 }, () => ({})) })).toBe(
      "data: must hold 1 to 500 objects",
    );
    expect(detailOf("generate", { data: [1] })).toBe("data[0]: must be an object");
    expect(detailOf("generate", { data: 3 })).toBe("data: must be an object or a list");
    expect(detailOf("generate", { data: [{}], merge: true, format: "docx" })).toMatch(
      /^merge: only PDFs are merged/,
    );
    expect(detailOf("generate", { data: {}, locale: "xx-Nope-Nope" })).toMatch(
      /^locale: "xx-Nope-Nope" is not a locale/,
    );
    expect(detailOf("generate", { data: {}, timeZone: "Mars/Olympus" })).toMatch(
      /^timeZone: "Mars\/Olympus" is not an IANA time zone/,
    );
  });
});

describe("types", () => {
  it("gives each operation its options after defaults", () => {
    expectTypeOf<OptionsOf<"rotate">>().toEqualTypeOf<{ angle: 90 | 180 | 270; pages?: string }>();
    expectTypeOf<keyof OptionsOf<"merge">>().toEqualTypeOf<never>();
    expectTypeOf<OptionsOf<"pdf-to-pdfa">>().toEqualTypeOf<{ level: "1" | "2" | "3" }>();
    expectTypeOf<OptionsOf<"compress">>().toEqualTypeOf<{
      level: "low" | "recommended" | "extreme";
      targetKB?: number;
      grayscale: boolean;
    }>();
    expectTypeOf<OptionsOf<"protect">>().toEqualTypeOf<{
      userPassword: string;
      ownerPassword?: string;
      allowPrinting: boolean;
      allowCopying: boolean;
      allowEditing: boolean;
    }>();
    expectTypeOf<OptionsOf<"ocr">["languages"][number]>().toEqualTypeOf<
      | "eng"
      | "spa"
      | "por"
      | "fra"
      | "deu"
      | "ita"
      | "nld"
      | "ind"
      | "swa"
      | "hin"
      | "ara"
      | "rus"
      | "tur"
      | "vie"
      | "chi_sim"
      | "jpn"
      | "kor"
    >();
    expectTypeOf<OptionsOf<"html-to-pdf">>().toEqualTypeOf<{
      url?: string;
      format: "A4" | "Letter" | "Legal";
      landscape: boolean;
      margin: "none" | "small" | "normal";
      background: boolean;
      media: "print" | "screen";
    }>();
    expectTypeOf<OptionsOf<"unlock">>().toEqualTypeOf<{ password: string }>();
  });
});
