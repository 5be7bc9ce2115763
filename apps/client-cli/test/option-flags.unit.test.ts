import { type OperationInfo, operationCatalogue } from "@octavo/client/catalogue";
import { Command, InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import {
  commanderOptions,
  kebabCase,
  optionsFromFlags,
  parseList,
  parseScalar,
} from "../src/option-flags.js";
import { UsageError } from "../src/usage-error.js";

function operation(id: string): OperationInfo {
  const found = operationCatalogue.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no operation ${id} in the catalogue`);
  return found;
}

/** The options object that `octavo-client <id> <flags>` sends. */
function optionsOf(id: string, flags: string[], optionsJson?: string): Record<string, unknown> {
  const entry = operation(id);
  // exitOverride: a bad value throws instead of exiting; the error is the test's, not stderr's.
  const command = new Command(id).exitOverride().configureOutput({ writeErr: () => {} });
  for (const option of entry.options) for (const flag of commanderOptions(option)) command.addOption(flag);
  command.parse(flags, { from: "user" });
  return optionsFromFlags(entry, { ...command.opts() }, optionsJson);
}

describe("flag names", () => {
  it("turns option names into kebab-case flags", () => {
    expect(kebabCase("targetKB")).toBe("target-kb");
    expect(kebabCase("userPassword")).toBe("user-password");
    expect(kebabCase("pageSize")).toBe("page-size");
    expect(kebabCase("languages")).toBe("languages");
    expect(kebabCase("allowPrinting")).toBe("allow-printing");
  });
});

describe("values", () => {
  it("parses integers and numbers, refusing anything else with a usage error", () => {
    expect(parseScalar("500", "integer")).toBe(500);
    expect(parseScalar("-45", "integer")).toBe(-45);
    expect(parseScalar("0.5", "number")).toBe(0.5);
    expect(() => parseScalar("5.5", "integer")).toThrow(InvalidArgumentError);
    expect(() => parseScalar("lots", "integer")).toThrow("Not an integer.");
    expect(() => parseScalar("", "number")).toThrow("Not a number.");
    expect(() => parseScalar("1e999", "number")).toThrow("Not a number.");
    expect(parseScalar("Page {n}", "string")).toBe("Page {n}");
  });

  it("checks choices, and splits comma-separated lists into typed items", () => {
    expect(parseScalar("low", "string", ["low", "high"])).toBe("low");
    expect(() => parseScalar("medium", "string", ["low", "high"])).toThrow("Allowed choices are low, high.");
    expect(parseList("eng, deu,,fra", "string")).toEqual(["eng", "deu", "fra"]);
    expect(parseList("1,2", "integer")).toEqual([1, 2]);
    expect(() => parseList("eng,xx", "string", ["eng", "deu"])).toThrow("Allowed choices are eng, deu.");
    expect(() => parseList(" , ", "string")).toThrow(InvalidArgumentError);
  });
});

describe("an operation's flags become its options object", () => {
  it("sends only the flags given, under the option's own name", () => {
    expect(optionsOf("compress", [])).toEqual({});
    expect(optionsOf("compress", ["--target-kb", "500", "--grayscale", "--level", "low"])).toEqual({
      targetKB: 500,
      grayscale: true,
      level: "low",
    });
  });

  it("takes arrays comma-separated and booleans as --name / --no-name", () => {
    expect(optionsOf("ocr", ["--languages", "eng,deu", "--no-deskew", "--force"])).toEqual({
      languages: ["eng", "deu"],
      deskew: false,
      force: true,
    });
    expect(optionsOf("metadata", ["--keywords", "q3, report", "--title", "Q3"])).toEqual({
      keywords: ["q3", "report"],
      title: "Q3",
    });
  });

  it("keeps an enum's type: rotate's angle a number, pdf-to-pdfa's level the string", () => {
    expect(optionsOf("rotate", ["--angle", "180", "--pages", "1-3, 5"])).toEqual({
      angle: 180,
      pages: "1-3, 5",
    });
    expect(optionsOf("pdf-to-pdfa", ["--level", "3"])).toEqual({ level: "3" });
    expect(() => optionsOf("rotate", ["--angle", "45"])).toThrow(/Allowed choices are 90, 180, 270/);
  });

  it("takes a list of objects as JSON: redact's areas beside its comma-separated lists", () => {
    const areas = [{ page: 2, rect: [72, 100, 200, 14] }];
    expect(
      optionsOf("redact", [
        "--text",
        "Jane Doe, ACME",
        "--presets",
        "email,iban",
        "--areas",
        JSON.stringify(areas),
        "--no-sanitize",
      ]),
    ).toEqual({ text: ["Jane Doe", "ACME"], presets: ["email", "iban"], areas, sanitize: false });
    expect(() => optionsOf("redact", ["--areas", "1,2"])).toThrow(/Not JSON: give a list such as/);
    expect(() => optionsOf("redact", ["--areas", '{"page":1}'])).toThrow("Not a JSON list ([...]).");
    expect(() => optionsOf("redact", ["--presets", "passport"])).toThrow(/Allowed choices are email, phone/);
  });

  it("starts from --options and lets the flags override its keys", () => {
    expect(optionsOf("compress", ["--target-kb", "200"], '{"level":"extreme","targetKB":100}')).toEqual({
      level: "extreme",
      targetKB: 200,
    });
    expect(() => optionsOf("compress", [], "{level")).toThrow(UsageError);
    expect(() => optionsOf("compress", [], "[1]")).toThrow(/must be a JSON object/);
  });

  it("shows the flag of a boolean that changes the default, and every enum's choices, in the help", () => {
    const help = (id: string) => {
      const command = new Command(id);
      for (const option of operation(id).options)
        for (const flag of commanderOptions(option)) command.addOption(flag);
      return command.helpInformation();
    };
    const ocr = help("ocr");
    expect(ocr).toContain("--no-deskew");
    expect(ocr).not.toMatch(/--deskew\s/);
    expect(ocr).toContain("--force");
    expect(ocr).toMatch(/--languages <list>[\s\S]*choices: "eng", "spa"/);
    expect(help("compress")).toMatch(/--target-kb <integer>[\s\S]*20 to 100000/);
  });

  it("has a flag for every option of every operation, none clashing with another", () => {
    for (const entry of operationCatalogue) {
      const command = new Command(entry.id);
      for (const option of entry.options)
        for (const flag of commanderOptions(option)) command.addOption(flag);
      const longs = command.options.map((flag) => flag.long);
      expect(new Set(longs).size, entry.id).toBe(longs.length);
      expect(longs.length, entry.id).toBeGreaterThanOrEqual(entry.options.length);
    }
  });
});
