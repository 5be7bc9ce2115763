import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sharedDir } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { debianPackageOf, ocrDoctor, ocrLanguages, tesseractModels } from "../src/index.js";
import { execFileAsync } from "./helpers.js";

describe("ocrLanguages", () => {
  it("are exactly the spec's 17 codes", async () => {
    const spec = await readFile(join(sharedDir, "spec", "service-spec.md"), "utf8");
    const row = spec.split("\n").find((line) => /^\|\s*ocr\s*\|\s*languages\s*\|/.test(line)) ?? "";
    const codes =
      /codes: ([a-z_, ]+)/
        .exec(row)?.[1]
        ?.split(",")
        .map((code) => code.trim()) ?? [];
    expect(codes).toHaveLength(17);
    expect([...ocrLanguages]).toEqual(codes);
    expect(Object.isFrozen(ocrLanguages)).toBe(true);
  });

  it("map to Tesseract models that are all installed (plus osd for rotation)", async () => {
    const { stdout } = await execFileAsync("tesseract", ["--list-langs"]);
    const installed = new Set(stdout.split("\n").map((line) => line.trim()));
    const missing = [...ocrLanguages.map((code) => tesseractModels[code] ?? code), "osd"].filter(
      (model) => !installed.has(model),
    );
    // A failure here names the Debian packages to install.
    expect(missing.map(debianPackageOf)).toEqual([]);
    expect(tesseractModels.chi_sim).toBe("chi_sim");
  });
});

describe("ocrDoctor", () => {
  it("finds ocrmypdf, tesseract and the language data for every code", async () => {
    const components = await ocrDoctor();
    const byName = new Map(components.map((component) => [component.name, component]));
    expect(byName.get("ocrmypdf")).toMatchObject({
      found: true,
      version: expect.stringMatching(/^\d+\.\d+/),
    });
    expect(byName.get("tesseract")).toMatchObject({
      found: true,
      version: expect.stringMatching(/^\d+\.\d+/),
    });
    for (const code of ocrLanguages) {
      const component = components.find((entry) => entry.name.startsWith(`tesseract language ${code} `));
      expect(component?.found, code).toBe(true);
    }
    expect(components.filter((component) => !component.found)).toEqual([]);
  });
});
